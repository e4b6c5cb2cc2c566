package dev.llmratelimit.usage;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;

/** Reads an OpenAI {@code usage} object; shared by the JSON and the SSE paths. */
final class UsageReader {

    private static final long ABSENT = -1;
    private static final long INVALID = -2;

    private UsageReader() {
    }

    /**
     * Reads the object the parser stands on (START_OBJECT) up to its END_OBJECT. Returns null when
     * a count is negative, not an integer, or when neither {@code prompt_tokens} nor
     * {@code completion_tokens} is present; an absent or null sub-field counts as 0, one too large to
     * be plausible as {@link Usage#MAX_TOKENS}.
     */
    static Usage read(JsonParser p) throws IOException {
        long prompt = ABSENT;
        long completion = ABSENT;
        long cached = ABSENT;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            switch (name) {
                case "prompt_tokens" -> prompt = count(p, value);
                case "completion_tokens" -> completion = count(p, value);
                case "prompt_tokens_details" -> cached = cachedTokens(p, value);
                default -> p.skipChildren();
            }
        }
        if (prompt == INVALID || completion == INVALID || cached == INVALID
                || (prompt == ABSENT && completion == ABSENT)) {
            return null;
        }
        return new Usage(Math.max(0, prompt), Math.max(0, completion), Math.max(0, cached));
    }

    private static long cachedTokens(JsonParser p, JsonToken value) throws IOException {
        if (value != JsonToken.START_OBJECT) {
            return value == JsonToken.VALUE_NULL ? ABSENT : skipInvalid(p);
        }
        long cached = ABSENT;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            boolean isCached = p.currentName().equals("cached_tokens");
            JsonToken detail = p.nextToken();
            if (isCached) {
                cached = count(p, detail);
            } else {
                p.skipChildren();
            }
        }
        return cached;
    }

    private static long count(JsonParser p, JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_NULL) {
            return ABSENT;
        }
        if (value != JsonToken.VALUE_NUMBER_INT) {
            return skipInvalid(p);
        }
        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            return p.getBigIntegerValue().signum() > 0 ? Usage.MAX_TOKENS : INVALID;     // beyond long: large
        }
        long count = p.getLongValue();
        return count >= 0 ? count : INVALID;
    }

    private static long skipInvalid(JsonParser p) throws IOException {
        p.skipChildren();
        return INVALID;
    }
}
