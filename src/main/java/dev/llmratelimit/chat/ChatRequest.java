package dev.llmratelimit.chat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;

import dev.llmratelimit.usage.EndpointShape;

import java.io.IOException;

/**
 * What the filter needs from a request body of one endpoint shape (SPEC section 12).
 *
 * @param model        the {@code model} field, as sent
 * @param stream       {@code "stream": true}; any other value counts as false
 * @param maxTokens    the most output tokens the whole request may produce: the shape's output cap
 *                     ({@link OutputCap}) times its number of choices, or {@link #NO_MAX_TOKENS};
 *                     0 for embeddings, which produce none
 * @param includeUsage {@code "stream_options": {"include_usage": true}} (chat and legacy completions)
 * @param shape        the endpoint shape the body was read as
 */
public record ChatRequest(String model, boolean stream, long maxTokens, boolean includeUsage, EndpointShape shape) {

    public static final long NO_MAX_TOKENS = -1;

    /** A chat-completion request. */
    public ChatRequest(String model, boolean stream, long maxTokens, boolean includeUsage) {
        this(model, stream, maxTokens, includeUsage, EndpointShape.CHAT);
    }

    /** The same request for another model (a fallback). */
    public ChatRequest withModel(String other) {
        return new ChatRequest(other, stream, maxTokens, includeUsage, shape);
    }

    /** Rejects duplicated keys at any depth, so that no two readers of one body can disagree. */
    static final JsonFactory STRICT_JSON = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private static final String DUPLICATE_MESSAGE_PREFIX = "Duplicate field";

    /**
     * Reads the first {@code length} bytes of {@code body} (UTF-8, or UTF-16/32 as Jackson detects
     * them) in one pass, skipping the content of every field it does not need.
     *
     * @throws InvalidChatRequestException the body is not exactly one JSON object, has a duplicated
     *                                     key, or has no string {@code model}
     */
    public static ChatRequest parse(byte[] body, int length) throws InvalidChatRequestException {
        return parse(body, length, EndpointShape.CHAT);
    }

    /**
     * As {@link #parse(byte[], int)}, reading the fields of the given shape.
     *
     * @throws InvalidChatRequestException also when an Anthropic Messages body has no {@code max_tokens}
     *                                     (that API requires it) or {@code n} is out of range
     */
    public static ChatRequest parse(byte[] body, int length, EndpointShape shape) throws InvalidChatRequestException {
        try (JsonParser parser = STRICT_JSON.createParser(body, 0, length)) {
            return read(parser, shape);
        } catch (StreamConstraintsException e) {
            throw new InvalidChatRequestException("The request body exceeds the JSON nesting or size limits.", null);
        } catch (JsonProcessingException e) {
            String problem = e.getOriginalMessage() != null && e.getOriginalMessage().startsWith(DUPLICATE_MESSAGE_PREFIX)
                    ? "The request body contains a duplicated key"
                    : "The request body is not valid JSON";
            throw new InvalidChatRequestException(problem + at(e.getLocation()) + ".", null);
        } catch (IOException e) {
            throw new InvalidChatRequestException("The request body is not valid JSON.", null);
        }
    }

    private static ChatRequest read(JsonParser p, EndpointShape shape) throws IOException, InvalidChatRequestException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw new InvalidChatRequestException("The request body must be a JSON object.", null);
        }
        String model = null;
        boolean stream = false;
        boolean includeUsage = false;
        OutputCap cap = new OutputCap(shape);
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            switch (name) {
                case "model" -> {
                    if (value != JsonToken.VALUE_STRING) {
                        throw new InvalidChatRequestException("The 'model' field must be a string.", "model");
                    }
                    model = p.getText();
                }
                case "stream" -> stream = value == JsonToken.VALUE_TRUE;
                case "stream_options" -> includeUsage = shape.hasIncludeUsageOption() && includesUsage(p, value);
                default -> cap.read(name, p, value);
            }
            p.skipChildren();
        }
        JsonLocation end = p.currentLocation();
        if (p.nextToken() != null) {
            throw new InvalidChatRequestException(
                    "The request body must hold a single JSON object; more content follows it" + at(end) + ".", null);
        }
        if (model == null) {
            throw new InvalidChatRequestException("The request body must have a string 'model' field.", "model");
        }
        return new ChatRequest(model, stream, cap.maxOutputTokens(), includeUsage, shape);
    }

    /** Leaves the parser on the END_OBJECT of {@code stream_options} (or on the scalar value). */
    private static boolean includesUsage(JsonParser p, JsonToken value) throws IOException {
        boolean include = false;
        if (value == JsonToken.START_OBJECT) {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken option = p.nextToken();
                if (name.equals("include_usage")) {
                    include = option == JsonToken.VALUE_TRUE;
                }
                p.skipChildren();
            }
        }
        return include;
    }

    private static String at(JsonLocation location) {
        if (location == null || location.getLineNr() < 1) {
            return "";
        }
        return " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
    }
}
