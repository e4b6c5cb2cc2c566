package dev.llmratelimit.chat;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * One edit of a JSON body made by splicing, not by re-serialising, so the application receives exactly
 * what the client sent but for that edit: UTF-8 bodies are edited as bytes, UTF-16 and UTF-32 ones as
 * text re-encoded in their own charset, byte order mark kept.
 */
final class BodySplice {

    private BodySplice() {
    }

    /** A replacement of the text in [start, end): in bytes for UTF-8, in chars otherwise. */
    record Edit(int start, int end, String replacement) {
    }

    /** Finds the edit in a parsed body; {@code null} when nothing is to change or nothing can be changed safely. */
    interface EditFinder {
        Edit find(JsonParser parser, boolean charOffsets) throws IOException;
    }

    static Optional<byte[]> apply(byte[] body, int length, EditFinder finder) {
        BodyEncoding encoding = BodyEncoding.detect(body, length);
        if (encoding == null) {
            return Optional.empty();
        }
        try {
            return encoding.isUtf8() ? spliceUtf8(body, length, finder) : spliceText(body, length, encoding, finder);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    static int offset(JsonLocation location, boolean charOffsets) {
        return (int) (charOffsets ? location.getCharOffset() : location.getByteOffset());
    }

    private static Optional<byte[]> spliceUtf8(byte[] body, int length, EditFinder finder) throws IOException {
        Edit edit;
        try (JsonParser parser = ChatRequest.STRICT_JSON.createParser(body, 0, length)) {
            edit = finder.find(parser, false);
        }
        if (edit == null) {
            return Optional.empty();
        }
        byte[] replacement = edit.replacement().getBytes(StandardCharsets.UTF_8);
        byte[] result = new byte[length - (edit.end() - edit.start()) + replacement.length];
        System.arraycopy(body, 0, result, 0, edit.start());
        System.arraycopy(replacement, 0, result, edit.start(), replacement.length);
        System.arraycopy(body, edit.end(), result, edit.start() + replacement.length, length - edit.end());
        return Optional.of(result);
    }

    private static Optional<byte[]> spliceText(byte[] body, int length, BodyEncoding encoding, EditFinder finder)
            throws IOException {
        String text = new String(body, encoding.bomLength(), length - encoding.bomLength(), encoding.charset());
        Edit edit;
        try (JsonParser parser = ChatRequest.STRICT_JSON.createParser(text)) {
            edit = finder.find(parser, true);
        }
        if (edit == null) {
            return Optional.empty();
        }
        String edited = text.substring(0, edit.start()) + edit.replacement() + text.substring(edit.end());
        byte[] encoded = edited.getBytes(encoding.charset());
        byte[] result = new byte[encoding.bomLength() + encoded.length];
        System.arraycopy(body, 0, result, 0, encoding.bomLength());
        System.arraycopy(encoded, 0, result, encoding.bomLength(), encoded.length);
        return Optional.of(result);
    }
}
