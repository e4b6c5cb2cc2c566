package dev.llmratelimit.usage;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.util.Optional;

/** Takes the {@code usage} of a complete (non-streamed) response body. */
public final class JsonUsageParser {

    /** Responses come from the application, so no duplicate detection: the last {@code usage} wins. */
    static final JsonFactory JSON = new JsonFactory();

    private JsonUsageParser() {
    }

    /**
     * Reads the first {@code length} bytes of {@code body}, skipping everything but {@code usage}.
     * Absent or null {@code prompt_tokens}, {@code completion_tokens} or
     * {@code prompt_tokens_details.cached_tokens} count as 0. Empty when the body is not one well-formed JSON
     * object, has no {@code usage} object, a count in it is negative or not an integer, or it has neither
     * {@code prompt_tokens} nor {@code completion_tokens}; never throws. A chat-completion body.
     */
    public static Optional<Usage> parse(byte[] body, int length) {
        return parse(body, length, EndpointShape.CHAT);
    }

    /**
     * As {@link #parse(byte[], int, EndpointShape)}, the shape told by the body's top-level
     * {@code "type"} or {@code "object"}: {@code "message"} is an Anthropic message, {@code "response"}
     * a Responses API response, anything else an OpenAI chat, completion or embeddings body.
     */
    public static Optional<Usage> parseAnyShape(byte[] body, int length) {
        return parse(body, length, shapeOf(body, length));
    }

    private static EndpointShape shapeOf(byte[] body, int length) {
        try (JsonParser p = JSON.createParser(body, 0, length)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return EndpointShape.CHAT;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                if (p.nextToken() == JsonToken.VALUE_STRING && (field.equals("type") || field.equals("object"))) {
                    switch (p.getText()) {
                        case "message" -> {
                            return EndpointShape.MESSAGES;
                        }
                        case "response" -> {
                            return EndpointShape.RESPONSES;
                        }
                        default -> { }
                    }
                }
                p.skipChildren();
            }
        } catch (IOException | RuntimeException e) {
            // not JSON: parse() answers empty
        }
        return EndpointShape.CHAT;
    }

    /** As {@link #parse(byte[], int)}, for the usage format of the given endpoint shape. */
    public static Optional<Usage> parse(byte[] body, int length, EndpointShape shape) {
        UsageFormat format = UsageFormat.of(shape);
        try (JsonParser p = JSON.createParser(body, 0, length)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return Optional.empty();
            }
            Usage usage = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                boolean isUsage = p.currentName().equals("usage");
                JsonToken value = p.nextToken();
                if (isUsage) {
                    usage = value == JsonToken.START_OBJECT ? UsageReader.read(p, format) : null;
                }
                p.skipChildren();
            }
            return p.nextToken() == null ? Optional.ofNullable(usage) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
