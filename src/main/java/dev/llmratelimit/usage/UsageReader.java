package dev.llmratelimit.usage;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;

/** Reads a {@code usage} object of one {@link UsageFormat}; shared by the JSON and the SSE paths. */
final class UsageReader {

    private UsageReader() {
    }

    /**
     * Reads the object the parser stands on (START_OBJECT) up to its END_OBJECT. Returns null when
     * a figure is negative or not an integer, or when neither the input nor the output figure is
     * present; an absent or null figure counts as 0, one too large to be plausible (beyond {@code long})
     * as {@link Usage#MAX_TOKENS}.
     */
    static Usage read(JsonParser p, UsageFormat format) throws IOException {
        long[] figures = UsageFormat.noFigures();
        return readInto(p, format, figures) ? format.usage(figures) : null;
    }

    /**
     * Reads the usage object the parser stands on into {@code figures}, overwriting those it holds;
     * false when a figure is invalid (the object is still read to its end).
     */
    static boolean readInto(JsonParser p, UsageFormat format, long[] figures) throws IOException {
        boolean valid = true;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            int figure = format.figure(name);
            if (figure != UsageFormat.NONE) {
                valid &= set(figures, figure, p, value);
            } else if (format.isDetails(name) && value == JsonToken.START_OBJECT) {
                valid &= details(p, format, figures);
            } else if (format.isDetails(name) && value != JsonToken.VALUE_NULL) {
                p.skipChildren();
                valid = false;
            } else {
                p.skipChildren();
            }
        }
        return valid;
    }

    private static boolean details(JsonParser p, UsageFormat format, long[] figures) throws IOException {
        boolean valid = true;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            int figure = format.detailFigure(p.currentName());
            JsonToken value = p.nextToken();
            if (figure != UsageFormat.NONE) {
                valid &= set(figures, figure, p, value);
            } else {
                p.skipChildren();
            }
        }
        return valid;
    }

    /** Stores a whole, non-negative count (null leaves the figure as it was); false for anything else. */
    private static boolean set(long[] figures, int figure, JsonParser p, JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_NULL) {
            return true;
        }
        if (value != JsonToken.VALUE_NUMBER_INT) {
            p.skipChildren();
            return false;
        }
        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            if (p.getBigIntegerValue().signum() <= 0) {
                return false;
            }
            figures[figure] = Usage.MAX_TOKENS;           // beyond long: large
            return true;
        }
        long count = p.getLongValue();
        if (count < 0) {
            return false;
        }
        figures[figure] = count;
        return true;
    }
}
