package dev.llmratelimit.chat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadFeature;
import dev.llmratelimit.usage.EndpointShape;

import java.nio.charset.Charset;
import java.util.List;

/**
 * The fields of a request body the filter decides on, read with the types the API of its endpoint
 * shape requires ({@link DecisionFields}, {@link ShapeFields}).
 *
 * @param model               the {@code model} field, as sent
 * @param stream              {@code "stream": true}
 * @param includeUsage        {@code "stream_options": {"include_usage": true}}
 * @param maxTokens           {@code max_tokens}, or {@link #NO_MAX_TOKENS} (also for 0: see {@link DecisionFields})
 * @param maxCompletionTokens {@code max_completion_tokens}, or {@link #NO_MAX_TOKENS} (likewise)
 * @param n                   the number of choices the response holds: {@code n} (1 when absent; legacy
 *                            completions the larger of {@code n} and {@code best_of}) times the prompts of a
 *                            legacy completion's {@code prompt} array
 * @param shape               the endpoint shape the body was read as; {@code maxTokens} holds that shape's
 *                            output cap ({@code max_output_tokens} of the Responses API)
 */
public record ChatRequest(String model, boolean stream, boolean includeUsage, long maxTokens,
                          long maxCompletionTokens, int n, EndpointShape shape) {

    public static final long NO_MAX_TOKENS = -1;

    /** A chat-completion request. */
    public ChatRequest(String model, boolean stream, boolean includeUsage, long maxTokens, long maxCompletionTokens, int n) {
        this(model, stream, includeUsage, maxTokens, maxCompletionTokens, n, EndpointShape.CHAT);
    }

    /** The same request for another model (a fallback). */
    public ChatRequest withModel(String other) {
        return new ChatRequest(other, stream, includeUsage, maxTokens, maxCompletionTokens, n, shape);
    }

    /** Rejects duplicated keys at any depth, so that no two readers of one body can disagree. */
    static final JsonFactory STRICT_JSON = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    /**
     * The completion tokens one choice may use: the larger of {@code max_completion_tokens} and
     * {@code max_tokens} (an application may pass on either), else none.
     */
    public long maxTokensPerChoice() {
        return Math.max(maxCompletionTokens, maxTokens);
    }

    /**
     * The completion tokens the whole request may use ({@link #n} choices), or {@link #NO_MAX_TOKENS};
     * 0 for embeddings, which produce none.
     */
    public long maxOutputTokens() {
        long perChoice = outputCapPerChoice();
        return perChoice == NO_MAX_TOKENS ? NO_MAX_TOKENS : perChoice * n;
    }

    /** The completion tokens one choice may use, or {@link #NO_MAX_TOKENS}; 0 for embeddings, which produce none. */
    public long outputCapPerChoice() {
        return shape == EndpointShape.EMBEDDINGS ? 0 : maxTokensPerChoice();
    }

    /**
     * Reads the first {@code length} bytes of {@code body} as a byte-detecting JSON parser does
     * (UTF-8, or UTF-16/32 by their byte order mark or zero bytes), in one pass that skips the content
     * of every field it does not need.
     *
     * @throws InvalidChatRequestException the body is not valid UTF-8/16/32, not exactly one JSON object,
     *                                     has a duplicated key, no string {@code model}, or a decision field
     *                                     of the wrong type
     */
    public static ChatRequest parse(byte[] body, int length) throws InvalidChatRequestException {
        return parse(body, length, List.of());
    }

    /**
     * Reads the body as {@link #parse(byte[], int)} does, and also as text decoded in each of
     * {@code textCharsets} (the ways an application may decode it, as {@code getReader()} does);
     * refuses it unless every reading has the same decision fields.
     */
    public static ChatRequest parse(byte[] body, int length, List<Charset> textCharsets)
            throws InvalidChatRequestException {
        return parse(body, length, textCharsets, EndpointShape.CHAT);
    }

    /** As {@link #parse(byte[], int, List)}, reading the decision fields of the given endpoint shape. */
    public static ChatRequest parse(byte[] body, int length, List<Charset> textCharsets, EndpointShape shape)
            throws InvalidChatRequestException {
        return OneReading.of(body, length, textCharsets, shape);
    }
}
