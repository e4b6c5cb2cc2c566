package dev.llmratelimit.usage;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.util.Set;

/**
 * Estimates the prompt tokens of a request body of any endpoint shape: a chat request by the
 * cookbook formula ({@link TokenCounter#promptTokens}); the others by the text of their prompt fields
 * (legacy completions {@code prompt}, embeddings {@code input}, the Responses API {@code instructions}
 * and {@code input}, Anthropic Messages {@code system} and {@code messages}). A prompt given as
 * token ids counts one token per id; inside items and messages only text-carrying fields count
 * ({@code content}, {@code text}, {@code output}, {@code arguments}), so images and other binary
 * parts are not estimated; every item or message adds {@value #TOKENS_PER_ITEM}, as chat messages do.
 * Bounded as chat's count is: a body over {@link TokenCounter#EXACT_COUNT_LIMIT_BYTES} is estimated by
 * {@link TokenCounter#upperBound(long)}, and long text is tokenized in pieces.
 */
public final class RequestPromptTokens {

    private static final int TOKENS_PER_ITEM = 3;
    private static final Set<String> TEXT_FIELDS = Set.of("content", "text", "output", "arguments");

    private RequestPromptTokens() {
    }

    public static long count(TokenCounter counter, EndpointShape shape, byte[] body, int length) {
        if (shape == EndpointShape.CHAT) {
            return counter.promptTokens(body, length);
        }
        if (length > TokenCounter.EXACT_COUNT_LIMIT_BYTES) {
            return TokenCounter.upperBound(length);
        }
        long tokens = 0;
        try (JsonParser p = JsonUsageParser.JSON.createParser(body, 0, length)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return 0;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                boolean prompt = isPromptField(shape, p.currentName());
                p.nextToken();
                if (prompt) {
                    tokens = plus(tokens, value(counter, p, true));
                } else {
                    p.skipChildren();
                }
            }
        } catch (IOException e) {
            // best effort: the body was validated before; keep what was counted
        }
        return tokens;
    }

    private static boolean isPromptField(EndpointShape shape, String field) {
        return switch (shape) {
            case COMPLETIONS -> field.equals("prompt");
            case EMBEDDINGS -> field.equals("input");
            case RESPONSES -> field.equals("input") || field.equals("instructions");
            case MESSAGES -> field.equals("system") || field.equals("messages");
            case CHAT -> false;
        };
    }

    /** The tokens of the value the parser stands on, which it reads to its end. */
    private static long value(TokenCounter counter, JsonParser p, boolean text) throws IOException {
        return switch (p.currentToken()) {
            case VALUE_STRING -> text ? counter.count(p.getText()) : 0;
            case VALUE_NUMBER_INT -> text ? 1 : 0;                  // a token id
            case START_ARRAY -> array(counter, p, text);
            case START_OBJECT -> object(counter, p);
            default -> 0;
        };
    }

    private static long array(TokenCounter counter, JsonParser p, boolean text) throws IOException {
        long tokens = 0;
        JsonToken element;
        while ((element = p.nextToken()) != JsonToken.END_ARRAY && element != null) {
            if (element == JsonToken.START_OBJECT) {
                tokens = plus(tokens, TOKENS_PER_ITEM);
            }
            tokens = plus(tokens, value(counter, p, text));
        }
        return tokens;
    }

    private static long object(TokenCounter counter, JsonParser p) throws IOException {
        long tokens = 0;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            boolean text = TEXT_FIELDS.contains(p.currentName());
            JsonToken value = p.nextToken();
            if (value == JsonToken.START_OBJECT || value == JsonToken.START_ARRAY || text) {
                tokens = plus(tokens, value(counter, p, text));
            }
        }
        return tokens;
    }

    private static long plus(long a, long b) {
        return a > Long.MAX_VALUE - b ? Long.MAX_VALUE : a + b;
    }
}
