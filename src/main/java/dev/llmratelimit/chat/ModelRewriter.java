package dev.llmratelimit.chat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;

import java.io.IOException;
import java.util.Optional;

/**
 * Points a request at a fallback model: the top-level {@code model} value is replaced and nothing
 * else changes (same bytes around it, same encoding). The new value is ASCII (other characters as
 * JSON escapes), so it reads the same in every charset the body was checked in ({@link OneReading}).
 */
public final class ModelRewriter {

    private ModelRewriter() {
    }

    /** The body with {@code model} set to {@code model}; empty when the body has no string {@code model} to replace. */
    public static Optional<byte[]> withModel(byte[] body, int length, String model) {
        String replacement = '"' + asciiOnly(new String(JsonStringEncoder.getInstance().quoteAsString(model))) + '"';
        return BodySplice.apply(body, length, (parser, charOffsets) -> findModel(parser, charOffsets, replacement));
    }

    private static String asciiOnly(String quoted) {
        StringBuilder ascii = new StringBuilder(quoted.length());
        for (char c : quoted.toCharArray()) {
            ascii.append(c < 0x80 ? String.valueOf(c) : String.format("\\u%04x", (int) c));
        }
        return ascii.toString();
    }

    private static BodySplice.Edit findModel(JsonParser p, boolean charOffsets, String replacement) throws IOException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            return null;
        }
        BodySplice.Edit edit = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            boolean model = p.currentName().equals("model");
            JsonToken value = p.nextToken();
            if (model && value == JsonToken.VALUE_STRING) {
                int start = BodySplice.offset(p.currentTokenLocation(), charOffsets);
                p.finishToken();
                edit = new BodySplice.Edit(start, BodySplice.offset(p.currentLocation(), charOffsets), replacement);
            }
            p.skipChildren();
        }
        return p.nextToken() == null ? edit : null;
    }
}
