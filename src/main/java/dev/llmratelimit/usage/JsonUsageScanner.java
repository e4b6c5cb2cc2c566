package dev.llmratelimit.usage;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.async.ByteArrayFeeder;

import java.io.IOException;

/**
 * Finds the top-level {@code usage} object of a JSON response while its bytes pass by, chunk by
 * chunk, without holding the body: the caller learns the usage as soon as the chunk that closes
 * the usage object is fed, before it forwards that chunk to the client.
 */
public final class JsonUsageScanner {

    private static final JsonFactory FACTORY = new JsonFactory();

    private final JsonParser parser;
    private int depth;
    private boolean inUsage;
    private boolean inDetails;
    private String field;
    private long prompt = -1;
    private long completion = -1;
    private long cached;
    private Usage usage;
    private boolean broken;

    public JsonUsageScanner() {
        try {
            parser = FACTORY.createNonBlockingByteArrayParser();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Feeds the next bytes of the body.
     *
     * @return true when this chunk completed the usage object
     */
    public boolean feed(byte[] bytes, int offset, int length) {
        if (broken || usage != null || length == 0) {
            return false;
        }
        try {
            ((ByteArrayFeeder) parser.getNonBlockingInputFeeder()).feedInput(bytes, offset, offset + length);
            JsonToken token;
            while ((token = parser.nextToken()) != null && token != JsonToken.NOT_AVAILABLE) {
                if (accept(token)) {
                    return true;
                }
            }
        } catch (IOException | RuntimeException e) {
            broken = true;
        }
        return false;
    }

    /** The usage found, or {@code null} when none (yet, or at all: missing or malformed). */
    public Usage usage() {
        return usage;
    }

    private boolean accept(JsonToken token) throws IOException {
        switch (token) {
            case START_OBJECT, START_ARRAY -> {
                depth++;
                if (token == JsonToken.START_OBJECT && depth == 2 && "usage".equals(field) && !inUsage) {
                    inUsage = true;
                } else if (token == JsonToken.START_OBJECT && inUsage && depth == 3 && "prompt_tokens_details".equals(field)) {
                    inDetails = true;
                }
            }
            case END_OBJECT, END_ARRAY -> {
                depth--;
                if (inDetails && depth == 2) {
                    inDetails = false;
                } else if (inUsage && depth == 1) {
                    inUsage = false;
                    if (prompt >= 0 && completion >= 0) {
                        usage = new Usage(prompt, completion, Math.min(cached, prompt));
                        return true;
                    }
                    broken = true;
                }
            }
            case FIELD_NAME -> field = parser.currentName();
            case VALUE_NUMBER_INT -> number(parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                    ? (parser.getBigIntegerValue().signum() > 0 ? Usage.MAX_TOKENS : -1)   // beyond long: large
                    : parser.getLongValue());
            default -> {
                if (inUsage && depth == 2 && ("prompt_tokens".equals(field) || "completion_tokens".equals(field))) {
                    broken = true;   // present but not a whole number
                }
            }
        }
        return false;
    }

    private void number(long value) {
        if (value < 0) {
            return;
        }
        if (inDetails && depth == 3 && "cached_tokens".equals(field)) {
            cached = value;
        } else if (inUsage && depth == 2 && "prompt_tokens".equals(field)) {
            prompt = value;
        } else if (inUsage && depth == 2 && "completion_tokens".equals(field)) {
            completion = value;
        }
    }
}
