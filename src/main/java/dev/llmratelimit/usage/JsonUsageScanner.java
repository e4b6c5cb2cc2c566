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
    private final UsageFormat format;
    private final long[] figures = UsageFormat.noFigures();
    private Usage usage;
    private boolean broken;

    /** A scanner for a chat-completion response. */
    public JsonUsageScanner() {
        this(EndpointShape.CHAT);
    }

    /** A scanner for a response of the given endpoint shape, whose usage has that shape's figures. */
    public JsonUsageScanner(EndpointShape shape) {
        this.format = UsageFormat.of(shape);
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
                } else if (token == JsonToken.START_OBJECT && inUsage && depth == 3 && format.isDetails(field)) {
                    inDetails = true;
                }
            }
            case END_OBJECT, END_ARRAY -> {
                depth--;
                if (inDetails && depth == 2) {
                    inDetails = false;
                } else if (inUsage && depth == 1) {
                    inUsage = false;
                    usage = broken ? null : format.usage(figures);
                    broken = usage == null;
                    return usage != null;
                }
            }
            case FIELD_NAME -> field = parser.currentName();
            case VALUE_NUMBER_INT -> number(parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                    ? (parser.getBigIntegerValue().signum() > 0 ? Usage.MAX_TOKENS : -1)   // beyond long: large
                    : parser.getLongValue());
            case VALUE_NULL -> { }
            default -> {
                if (figure() != UsageFormat.NONE) {
                    broken = true;   // present but not a whole number
                }
            }
        }
        return false;
    }

    /** The figure the current value is, or {@link UsageFormat#NONE}. */
    private int figure() {
        if (inDetails && depth == 3) {
            return format.detailFigure(field);
        }
        return inUsage && depth == 2 ? format.figure(field) : UsageFormat.NONE;
    }

    private void number(long value) {
        int figure = figure();
        if (figure == UsageFormat.NONE) {
            return;
        }
        if (value < 0) {
            broken = true;
        } else {
            figures[figure] = value;
        }
    }
}
