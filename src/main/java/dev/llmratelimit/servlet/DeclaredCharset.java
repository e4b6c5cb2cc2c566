package dev.llmratelimit.servlet;

import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.UnsupportedCharsetException;

/**
 * JSON is UTF-8 (or UTF-16/32, which the parser detects), but a client may declare another charset
 * such as ISO-8859-1; the filter then reads the body in that charset, as the application would.
 * The application always receives the original bytes.
 */
final class DeclaredCharset {

    private DeclaredCharset() {
    }

    static byte[] toUtf8(byte[] body, String declared) {
        Charset charset = nonUtf(declared);
        return charset == null ? body : new String(body, charset).getBytes(StandardCharsets.UTF_8);
    }

    /** The way back: UTF-8 bytes (a body the filter changed) in the charset the client declared. */
    static byte[] fromUtf8(byte[] utf8, String declared) {
        Charset charset = nonUtf(declared);
        return charset == null ? utf8 : new String(utf8, StandardCharsets.UTF_8).getBytes(charset);
    }

    /** The declared charset when it is not a UTF (nor unknown), else {@code null}. */
    private static Charset nonUtf(String declared) {
        if (declared == null || declared.regionMatches(true, 0, "UTF-", 0, 4)) {
            return null;
        }
        try {
            return Charset.forName(declared.trim());
        } catch (IllegalCharsetNameException | UnsupportedCharsetException e) {
            return null;
        }
    }
}
