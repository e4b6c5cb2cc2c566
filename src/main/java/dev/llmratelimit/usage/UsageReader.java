package dev.llmratelimit.usage;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;

/** Reads a {@code usage} object of one {@link UsageFormat}; shared by the JSON and the SSE paths. */
final class UsageReader {

    /** A figure that is present but not a whole, non-negative count. */
    static final long INVALID = -2;

    private UsageReader() {
    }

    /**
     * Reads the object the parser stands on (START_OBJECT) up to its END_OBJECT. Returns null when
     * a figure is negative or not an integer, or when neither the input nor the output figure is
     * present; an absent or null figure counts as 0, one too large to be plausible (beyond {@code long})
     * as {@link Usage#MAX_TOKENS}. A key given twice is read as clients read it: the last one wins.
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
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            int figure = format.figure(name);
            if (figure != UsageFormat.NONE) {
                figures[figure] = figure(p, value);
            } else if (format.isDetails(name)) {
                figures[format.detailsFigure()] = value == JsonToken.START_OBJECT ? details(p, format)
                        : value == JsonToken.VALUE_NULL ? UsageFormat.ABSENT : INVALID;
                p.skipChildren();
            } else {
                p.skipChildren();
            }
        }
        for (long figure : figures) {
            if (figure == INVALID) {
                return false;
            }
        }
        return true;
    }

    /** The figure of a details object (the last one wins, as for every key). */
    private static long details(JsonParser p, UsageFormat format) throws IOException {
        long found = UsageFormat.ABSENT;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            int figure = format.detailFigure(p.currentName());
            JsonToken value = p.nextToken();
            if (figure != UsageFormat.NONE) {
                found = figure(p, value);
            } else {
                p.skipChildren();
            }
        }
        return found;
    }

    /** A whole, non-negative count; {@link UsageFormat#ABSENT} for null; {@link #INVALID} for anything else. */
    private static long figure(JsonParser p, JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_NULL) {
            return UsageFormat.ABSENT;
        }
        if (value != JsonToken.VALUE_NUMBER_INT) {
            p.skipChildren();
            return INVALID;
        }
        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            return p.getBigIntegerValue().signum() <= 0 ? INVALID : Usage.MAX_TOKENS;   // beyond long: large
        }
        long count = p.getLongValue();
        return count < 0 ? INVALID : count;
    }
}
