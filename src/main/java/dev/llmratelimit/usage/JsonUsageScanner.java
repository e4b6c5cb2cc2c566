package dev.llmratelimit.usage;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.async.ByteArrayFeeder;

import java.io.IOException;

/**
 * Finds the top-level {@code usage} object of a JSON response while its bytes pass by, chunk by
 * chunk, without holding the body. Keys are read as clients read them: the last {@code usage} wins,
 * and the last of a figure given twice inside it. The caller learns the usage when the chunk that
 * closes the body is fed, before it forwards that chunk to the client.
 */
public final class JsonUsageScanner {

    private static final JsonFactory FACTORY = new JsonFactory();

    private final JsonParser parser;
    private int depth;
    private boolean inUsage;
    private boolean inDetails;
    private String field;
    private final UsageFormat format;
    private long[] figures = UsageFormat.noFigures();
    private Usage usage;
    private boolean unusable;
    private boolean ended;
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
     * @return true when this chunk ended the body and it has a usable usage
     */
    public boolean feed(byte[] bytes, int offset, int length) {
        if (broken || ended || length == 0) {
            return false;
        }
        try {
            ((ByteArrayFeeder) parser.getNonBlockingInputFeeder()).feedInput(bytes, offset, offset + length);
            JsonToken token;
            while ((token = parser.nextToken()) != null && token != JsonToken.NOT_AVAILABLE) {
                if (accept(token)) {
                    return usage != null;
                }
            }
        } catch (IOException | RuntimeException e) {
            broken = true;
        } finally {
            if (ended || broken) {
                close();
            }
        }
        return false;
    }

    /** Closing hands the names this body taught the parser back to the factory's table, for the next body. */
    private void close() {
        try {
            parser.close();
        } catch (IOException e) {
            broken = true;
        }
    }

    /** The usage of the last {@code usage} object read so far, or {@code null} when none, or it is unusable. */
    public Usage usage() {
        return usage;
    }

    /**
     * Whether the last {@code usage} read so far is present but unusable: not an object, a figure negative,
     * fractional or not a number, or neither the input nor the output figure given. A {@code "usage": null}
     * is no usage, not an unusable one.
     */
    public boolean isUnusable() {
        return unusable;
    }

    /** Returns true when the token ended the top-level value. */
    private boolean accept(JsonToken token) throws IOException {
        switch (token) {
            case START_OBJECT, START_ARRAY -> {
                if (depth == 1 && "usage".equals(field)) {
                    startUsage(token == JsonToken.START_OBJECT);
                } else if (inUsage && depth == 2 && format.isDetails(field)) {
                    inDetails = token == JsonToken.START_OBJECT;
                    figures[format.detailsFigure()] = inDetails ? UsageFormat.ABSENT : UsageReader.INVALID;
                } else {
                    invalidateFigure();
                }
                depth++;
            }
            case END_OBJECT, END_ARRAY -> {
                depth--;
                if (inDetails && depth == 2) {
                    inDetails = false;
                } else if (inUsage && depth == 1) {
                    endUsage();
                }
                if (depth == 0) {
                    ended = true;
                    return true;
                }
            }
            case FIELD_NAME -> field = parser.currentName();
            case VALUE_NUMBER_INT -> number(parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                    ? (parser.getBigIntegerValue().signum() > 0 ? Usage.MAX_TOKENS : -1)   // beyond long: large
                    : parser.getLongValue());
            case VALUE_NULL -> {
                if (depth == 1 && "usage".equals(field)) {
                    usage = null;                           // the last usage is none
                    unusable = false;
                } else {
                    set(UsageFormat.ABSENT);
                }
            }
            default -> scalar();
        }
        return false;
    }

    private void startUsage(boolean isObject) {
        inUsage = isObject;
        figures = UsageFormat.noFigures();
        if (!isObject) {
            usage = null;
            unusable = true;
        }
    }

    private void endUsage() {
        inUsage = false;
        boolean valid = true;
        for (long figure : figures) {
            valid &= figure != UsageReader.INVALID;
        }
        usage = valid ? format.usage(figures) : null;
        unusable = usage == null;
    }

    /** A string, a fraction or a boolean: invalid where a figure is expected. */
    private void scalar() {
        if (depth == 1 && "usage".equals(field)) {
            usage = null;
            unusable = true;
        } else if (inUsage && depth == 2 && format.isDetails(field)) {
            figures[format.detailsFigure()] = UsageReader.INVALID;
        } else {
            invalidateFigure();
        }
    }

    private void invalidateFigure() {
        set(UsageReader.INVALID);
    }

    /** The figure the current value is, or {@link UsageFormat#NONE}. */
    private int figure() {
        if (inDetails && depth == 3) {
            return format.detailFigure(field);
        }
        return inUsage && depth == 2 ? format.figure(field) : UsageFormat.NONE;
    }

    private void number(long value) {
        if (depth == 1 && "usage".equals(field) || inUsage && depth == 2 && format.isDetails(field)) {
            scalar();
            return;
        }
        set(value < 0 ? UsageReader.INVALID : value);
    }

    private void set(long value) {
        int figure = figure();
        if (figure != UsageFormat.NONE) {
            figures[figure] = value;
        }
    }
}
