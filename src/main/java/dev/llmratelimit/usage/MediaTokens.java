package dev.llmratelimit.usage;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The prompt tokens of inline data in a request (a {@code data:} URL, a base64 {@code data} or
 * {@code file_data} field): data that decodes to UTF-8 text is that text, as a provider reads a text
 * file; anything else (an image, audio, a PDF) is media, counted by a bound
 * ({@link RequestPromptTokens#MEDIA_PART_TOKENS}, or one token per
 * {@value RequestPromptTokens#MEDIA_BYTES_PER_TOKEN} decoded bytes when more).
 */
final class MediaTokens {

    /** Shorter values of a {@code data} field are read as text: a word can be valid base64 too. */
    private static final int MIN_BASE64_CHARS = 16;

    private MediaTokens() {
    }

    /** {@code data:[<media type>][;base64],<data>}; data that is not base64 is counted as the text it is. */
    static long ofDataUrl(TokenCounter counter, String url) {
        int comma = url.indexOf(',');
        if (comma < 0) {
            return counter.count(url);
        }
        String payload = url.substring(comma + 1);
        if (!url.substring(0, comma).endsWith(";base64")) {
            return counter.count(payload);
        }
        byte[] decoded;
        try {
            decoded = Base64.getMimeDecoder().decode(payload);
        } catch (IllegalArgumentException e) {
            return counter.count(payload);
        }
        return ofBytes(counter, decoded);
    }

    /**
     * A field that holds base64 data or plain text (Anthropic's text document source): short values and
     * values that are not whole base64 units are text.
     */
    static long ofBase64OrText(TokenCounter counter, String value) {
        if (value.length() < MIN_BASE64_CHARS || value.length() % 4 != 0) {
            return counter.count(value);
        }
        byte[] decoded;
        try {
            decoded = Base64.getDecoder().decode(value);
        } catch (IllegalArgumentException e) {
            return counter.count(value);
        }
        return ofBytes(counter, decoded);
    }

    private static long ofBytes(TokenCounter counter, byte[] decoded) {
        String text = textOrNull(decoded);
        if (text != null) {
            return counter.count(text);
        }
        return Math.max(RequestPromptTokens.MEDIA_PART_TOKENS, decoded.length / RequestPromptTokens.MEDIA_BYTES_PER_TOKEN);
    }

    /** The bytes as UTF-8 text, or null when they are not (binary data is never valid UTF-8 without NULs). */
    private static String textOrNull(byte[] bytes) {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
        return text.indexOf('\0') >= 0 ? null : text;
    }
}
