package dev.llmratelimit.servlet;

import java.io.UnsupportedEncodingException;
import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.UnsupportedCharsetException;
import java.util.List;

/**
 * The charsets an application may decode a request body with, from the charset the request declares
 * ({@code getCharacterEncoding()}, which includes a container's default request encoding): the
 * filter makes sure the body reads the same in each of them ({@link dev.llmratelimit.chat.ChatRequest#parse(byte[], int, List)}),
 * and {@link BufferedBodyRequest#getReader()} decodes with the same one.
 */
final class DeclaredCharset {

    private DeclaredCharset() {
    }

    /**
     * The declared charset; when none is declared, ISO-8859-1 (what {@code getReader()} uses) and
     * UTF-8 (what JSON readers of frameworks use); for an unknown name none, since {@code getReader()}
     * then refuses to read and only byte-reading applications can.
     */
    static List<Charset> readings(String declared) {
        if (declared == null) {
            return List.of(StandardCharsets.ISO_8859_1, StandardCharsets.UTF_8);
        }
        Charset charset = lookUp(declared);
        return charset == null ? List.of() : List.of(charset);
    }

    /** The charset {@code getReader()} decodes with: the declared one, else ISO-8859-1 (Servlet specification). */
    static Charset forReader(String declared) throws UnsupportedEncodingException {
        if (declared == null) {
            return StandardCharsets.ISO_8859_1;
        }
        Charset charset = lookUp(declared);
        if (charset == null) {
            throw new UnsupportedEncodingException(declared);
        }
        return charset;
    }

    private static Charset lookUp(String name) {
        try {
            return Charset.forName(name.trim());
        } catch (IllegalCharsetNameException | UnsupportedCharsetException e) {
            return null;
        }
    }
}
