package dev.llmratelimit.chat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.util.Optional;

/**
 * Makes a streamed chat request ask for usage by setting {@code "stream_options":{"include_usage":true}},
 * splicing the bytes of the body rather than re-serialising it, so the application receives exactly what
 * the client sent plus that one change:
 * <ul>
 *   <li>no {@code stream_options}: {@code "stream_options":{"include_usage":true}} right after the opening
 *       brace, followed by a comma when the object has other fields;</li>
 *   <li>{@code stream_options} an object without {@code include_usage}: {@code "include_usage":true}
 *       right after its opening brace (comma likewise);</li>
 *   <li>{@code include_usage} with any value but {@code true}: that value becomes {@code true};</li>
 *   <li>{@code "stream_options":null}: becomes {@code {"include_usage":true}}.</li>
 * </ul>
 * UTF-16 and UTF-32 bodies are edited as text and re-encoded in their own charset, byte order mark kept.
 */
public final class IncludeUsageRewriter {

    private static final String OPTIONS_FIELD = "stream_options";
    private static final String USAGE_FIELD = "include_usage";

    private IncludeUsageRewriter() {
    }

    /**
     * Returns the body with usage requested, or empty when no change is needed or none can be made
     * safely: usage already requested, {@code stream_options} neither an object nor null, or a body that
     * {@link ChatRequest#parse} would refuse.
     */
    public static Optional<byte[]> withIncludeUsage(byte[] body, int length) {
        return BodySplice.apply(body, length, IncludeUsageRewriter::findEdit);
    }

    /** Reads the whole body (so a malformed one yields no edit); null when nothing is to change. */
    private static BodySplice.Edit findEdit(JsonParser p, boolean charOffsets) throws IOException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            return null;
        }
        int open = BodySplice.offset(p.currentTokenLocation(), charOffsets);
        boolean empty = true;
        boolean optionsSeen = false;
        BodySplice.Edit edit = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            empty = false;
            boolean options = p.currentName().equals(OPTIONS_FIELD);
            p.nextToken();
            if (options) {
                optionsSeen = true;
                edit = optionsEdit(p, charOffsets);
            }
            p.skipChildren();
        }
        if (p.nextToken() != null) {
            return null;
        }
        if (!optionsSeen) {
            String inserted = "\"" + OPTIONS_FIELD + "\":{\"" + USAGE_FIELD + "\":true}" + (empty ? "" : ",");
            return new BodySplice.Edit(open + 1, open + 1, inserted);
        }
        return edit;
    }

    /** Leaves the parser on the last token of the {@code stream_options} value. */
    private static BodySplice.Edit optionsEdit(JsonParser p, boolean charOffsets) throws IOException {
        JsonToken value = p.currentToken();
        if (value == JsonToken.VALUE_NULL) {
            return replaceValue(p, charOffsets, "{\"" + USAGE_FIELD + "\":true}");
        }
        if (value != JsonToken.START_OBJECT) {
            return null;
        }
        int open = BodySplice.offset(p.currentTokenLocation(), charOffsets);
        boolean empty = true;
        boolean usageSeen = false;
        BodySplice.Edit edit = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            empty = false;
            boolean usage = p.currentName().equals(USAGE_FIELD);
            JsonToken option = p.nextToken();
            if (usage) {
                usageSeen = true;
                edit = option == JsonToken.VALUE_TRUE ? null : replaceValue(p, charOffsets, "true");
            }
            p.skipChildren();
        }
        if (!usageSeen) {
            return new BodySplice.Edit(open + 1, open + 1, "\"" + USAGE_FIELD + "\":true" + (empty ? "" : ","));
        }
        return edit;
    }

    /** Consumes the current value and replaces all of its text. */
    private static BodySplice.Edit replaceValue(JsonParser p, boolean charOffsets, String replacement) throws IOException {
        int start = BodySplice.offset(p.currentTokenLocation(), charOffsets);
        if (p.currentToken() == JsonToken.VALUE_STRING) {
            p.finishToken();
        } else {
            p.skipChildren();
        }
        return new BodySplice.Edit(start, BodySplice.offset(p.currentLocation(), charOffsets), replacement);
    }
}
