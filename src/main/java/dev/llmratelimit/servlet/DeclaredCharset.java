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
        if (declared == null || declared.regionMatches(true, 0, "UTF-", 0, 4)) {
            return body;
        }
        try {
            return new String(body, Charset.forName(declared.trim())).getBytes(StandardCharsets.UTF_8);
        } catch (IllegalCharsetNameException | UnsupportedCharsetException e) {
            return body;
        }
    }
}
