package dev.llmratelimit.usage;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;

import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * Counts tokens with the tokenizer of a model family (jtokkit). {@code o200k_base} serves gpt-4o,
 * gpt-4.1, gpt-4.5, gpt-5, o1, o3 and o4 models; {@code cl100k_base} serves gpt-4 and gpt-3.5, and is
 * the approximation for every other model (open-weight models have their own tokenizers, which
 * cl100k_base usually matches within some percent). A provider prefix ({@code openai/gpt-4o}) is ignored.
 * Special-token text such as {@code <|endoftext|>} is counted as ordinary text. Thread-safe; the two
 * instances are shared and each encoding is loaded once, by {@link #warmUp} at start-up or else on
 * first use.
 *
 * <p>Work is bounded: text is tokenized in pieces of at most {@value #PIECE_CHARS} characters
 * ({@link TextPieces}), so time is linear in the text and memory bounded by the piece; a request body
 * over {@value #EXACT_COUNT_LIMIT_BYTES} bytes is not tokenized at all, its estimate is
 * {@link #upperBound(long)}.
 */
public final class TokenCounter {

    private static final String[] O200K_PREFIXES = {
        "gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4"};

    /**
     * Text longer than this is tokenized piece by piece. Small pieces keep jtokkit on its fast path:
     * 1 MiB of random letters allocated 54 MiB in pieces of 384 characters, 295 MiB in pieces of 4096.
     */
    static final int PIECE_CHARS = 384;

    /**
     * Request bodies up to this size are tokenized (about 0.3-0.5 s of CPU for the worst text, random
     * letters; under 0.1 s for prose); larger ones are estimated by {@link #upperBound(long)}.
     */
    public static final int EXACT_COUNT_LIMIT_BYTES = 1 << 20;

    private static final String WARM_UP_TEXT = "Warm up the tokenizer: 1, 2, 3.";

    private final Encoding encoding;

    private TokenCounter(Encoding encoding) {
        this.encoding = encoding;
    }

    /** The counter for a model name as it appears in the request body. */
    public static TokenCounter forModel(String model) {
        return usesO200k(model) ? O200k.COUNTER : Cl100k.COUNTER;
    }

    private static boolean usesO200k(String model) {
        String name = model.substring(model.lastIndexOf('/') + 1);
        for (String prefix : O200K_PREFIXES) {
            if (name.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Loads (and runs once) the tokenizers of these models on a daemon thread, so that no request pays
     * the first load (a vocabulary of 100-200k entries, hundreds of ms). Completes with the names of the
     * encodings it warmed.
     */
    public static CompletableFuture<Set<String>> warmUp(Collection<String> models) {
        boolean o200k = models.stream().anyMatch(TokenCounter::usesO200k);
        boolean cl100k = models.stream().anyMatch(model -> !usesO200k(model));
        return CompletableFuture.supplyAsync(() -> {
            Set<String> warmed = new TreeSet<>();
            if (o200k) {
                warmed.add(O200k.COUNTER.warm());
            }
            if (cl100k) {
                warmed.add(Cl100k.COUNTER.warm());
            }
            return warmed;
        }, task -> {
            Thread thread = new Thread(task, "llm-ratelimit-tokenizer-warm-up");
            thread.setDaemon(true);
            thread.start();
        });
    }

    private String warm() {
        count(WARM_UP_TEXT);
        return encodingName();
    }

    /**
     * An upper bound of {@link #promptTokens} for a body of this many bytes, without a tokenizer: every
     * BPE token is at least one byte of UTF-8, a character takes at most 1.5 times the bytes in UTF-8
     * that it takes in the body (3 for 2 in UTF-16, never more in UTF-8 itself or UTF-32, and JSON
     * escapes only make the body longer), each message's 3 tokens come with at least 3 bytes of
     * structure ({@code {}} and a separator) and each name's 1 with its key, plus 3 priming the reply.
     */
    public static long upperBound(long bodyBytes) {
        return bodyBytes + bodyBytes / 2 + RequestPromptTokens.TOKENS_REPLY_PRIMING;
    }

    /** {@code "o200k_base"} or {@code "cl100k_base"}. */
    public String encodingName() {
        return encoding.getName();
    }

    /** The tokens of the text, counted in pieces when it is longer than {@value #PIECE_CHARS} characters. */
    public long count(String text) {
        long tokens = 0;
        int start = 0;
        while (text.length() - start > PIECE_CHARS) {
            int cut = TextPieces.cut(text, start, start + PIECE_CHARS);
            tokens += encoding.countTokensOrdinary(text.substring(start, cut));
            start = cut;
        }
        return tokens + encoding.countTokensOrdinary(start == 0 ? text : text.substring(start));
    }

    /**
     * Estimates the prompt tokens of a chat-completion request body: {@link RequestPromptTokens} for
     * the chat shape (every message, tool, schema and file, bounded by the body's size).
     */
    public long promptTokens(byte[] body, int length) {
        return RequestPromptTokens.count(this, EndpointShape.CHAT, body, length);
    }

    private static final class Registry {
        static final EncodingRegistry INSTANCE = Encodings.newLazyEncodingRegistry();
    }

    private static final class O200k {
        static final TokenCounter COUNTER = new TokenCounter(Registry.INSTANCE.getEncoding(EncodingType.O200K_BASE));
    }

    private static final class Cl100k {
        static final TokenCounter COUNTER = new TokenCounter(Registry.INSTANCE.getEncoding(EncodingType.CL100K_BASE));
    }
}
