package dev.llmratelimit.chat;

import dev.llmratelimit.usage.EndpointShape;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;

import java.io.IOException;

/**
 * The one place that reads the fields the filter decides on from a JSON text, with the types the
 * OpenAI API requires: {@code model} a string; {@code stream} a boolean or null;
 * {@code stream_options} an object or null (its {@code include_usage} a boolean or null);
 * {@code max_tokens} and {@code max_completion_tokens} whole numbers from 0 to {@value #MAX_TOKENS}
 * or null; {@code n} a whole number from 1 to {@value #MAX_N} or null. A lenient application
 * (Jackson databind coerces {@code "true"} and {@code 1} to {@code true}, {@code "100"} and
 * {@code 100.0} to 100) would otherwise read a different request than the filter.
 */
final class DecisionFields {

    /** OpenAI's limit for token counts in a request: a 32-bit integer. */
    static final long MAX_TOKENS = Integer.MAX_VALUE;
    /** OpenAI's limit for the number of choices. */
    static final int MAX_N = 128;

    private static final String DUPLICATE_MESSAGE_PREFIX = "Duplicate field";

    private DecisionFields() {
    }

    /** Reads one JSON text in one pass, skipping the content of every field it does not need. */
    static ChatRequest read(String text, EndpointShape shape) throws InvalidChatRequestException {
        return read(() -> ChatRequest.STRICT_JSON.createParser(text), shape);
    }

    /** Reads UTF-8 JSON (valid: see {@link BodyEncoding#decodeStrictly}) from its bytes, faster than from text. */
    static ChatRequest readUtf8(byte[] body, int offset, int length, EndpointShape shape)
            throws InvalidChatRequestException {
        return read(() -> ChatRequest.STRICT_JSON.createParser(body, offset, length), shape);
    }

    private interface ParserSource {
        JsonParser open() throws IOException;
    }

    private static ChatRequest read(ParserSource source, EndpointShape shape) throws InvalidChatRequestException {
        try (JsonParser parser = source.open()) {
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
        long maxTokens = ChatRequest.NO_MAX_TOKENS;
        long maxCompletionTokens = ChatRequest.NO_MAX_TOKENS;
        long n = 1;
        long prompts = 1;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            if (name.equals("model")) {
                if (value != JsonToken.VALUE_STRING) {
                    throw new InvalidChatRequestException("The 'model' field must be a string.", "model");
                }
                model = p.getText();
            } else if (name.equals("stream")) {
                stream = bool(value, "stream");
            } else {
                switch (ShapeFields.of(shape, name)) {
                    case STREAM_OPTIONS -> includeUsage = includesUsage(p, value);
                    case MAX_TOKENS -> maxTokens = outputCap(p, value, name);
                    case MAX_COMPLETION_TOKENS -> maxCompletionTokens = outputCap(p, value, name);
                    case CHOICES -> n = Math.max(n, wholeNumber(p, value, name, 1, MAX_N, 1));
                    case PROMPTS -> prompts = prompts(p, value);
                    case NONE -> { }
                }
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
        if (ShapeFields.requiresMaxTokens(shape) && maxTokens == ChatRequest.NO_MAX_TOKENS) {
            throw new InvalidChatRequestException("The 'max_tokens' field is required: a whole number of tokens.",
                    "max_tokens");
        }
        return new ChatRequest(model, stream, includeUsage, maxTokens, maxCompletionTokens,
                (int) Math.min(Integer.MAX_VALUE, n * prompts), shape);
    }

    private static boolean bool(JsonToken value, String field) throws InvalidChatRequestException {
        if (value != JsonToken.VALUE_TRUE && value != JsonToken.VALUE_FALSE && value != JsonToken.VALUE_NULL) {
            throw new InvalidChatRequestException("The '" + field + "' field must be a boolean.", field);
        }
        return value == JsonToken.VALUE_TRUE;
    }

    /** A whole number in [min, max], or {@code absent} for null. */
    private static long wholeNumber(JsonParser p, JsonToken value, String field, long min, long max, long absent)
            throws IOException, InvalidChatRequestException {
        if (value == JsonToken.VALUE_NULL) {
            return absent;
        }
        if (value != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                || p.getLongValue() < min || p.getLongValue() > max) {
            throw new InvalidChatRequestException(
                    "The '" + field + "' field must be a whole number from " + min + " to " + max + ".", field);
        }
        return p.getLongValue();
    }

    /**
     * An output cap: 0 is read as absent, as servers that take {@code max_completion_tokens or max_tokens}
     * read it (they then generate up to the other field, or their default), so it never caps the reservation.
     */
    private static long outputCap(JsonParser p, JsonToken value, String field) throws IOException, InvalidChatRequestException {
        long cap = wholeNumber(p, value, field, 0, MAX_TOKENS, ChatRequest.NO_MAX_TOKENS);
        return cap == 0 ? ChatRequest.NO_MAX_TOKENS : cap;
    }

    /**
     * The prompts of a legacy completion: an array of strings (or of token arrays) is one prompt each, and
     * each gets its own completions; a string or one array of token ids is one prompt. The field's content is
     * not checked here: the application's API does. Leaves the parser on the last token of the value.
     */
    private static long prompts(JsonParser p, JsonToken value) throws IOException {
        if (value != JsonToken.START_ARRAY) {
            return 1;
        }
        long count = 0;
        JsonToken element;
        while ((element = p.nextToken()) != JsonToken.END_ARRAY && element != null) {
            if (element == JsonToken.VALUE_NUMBER_INT && count == 0) {
                p.skipChildren();
                return skipRest(p);
            }
            count++;
            p.skipChildren();
        }
        return Math.max(1, count);
    }

    /** Skips to the END_ARRAY of the array the parser is in; one prompt of token ids. */
    private static long skipRest(JsonParser p) throws IOException {
        JsonToken token;
        while ((token = p.nextToken()) != JsonToken.END_ARRAY && token != null) {
            p.skipChildren();
        }
        return 1;
    }

    /** Leaves the parser on the END_OBJECT of {@code stream_options} (or on its null). */
    private static boolean includesUsage(JsonParser p, JsonToken value) throws IOException, InvalidChatRequestException {
        if (value == JsonToken.VALUE_NULL) {
            return false;
        }
        if (value != JsonToken.START_OBJECT) {
            throw new InvalidChatRequestException("The 'stream_options' field must be an object or null.", "stream_options");
        }
        boolean include = false;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken option = p.nextToken();
            if (name.equals("include_usage")) {
                include = bool(option, "stream_options.include_usage");
            }
            p.skipChildren();
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
