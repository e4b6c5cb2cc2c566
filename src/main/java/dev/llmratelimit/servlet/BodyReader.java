package dev.llmratelimit.servlet;

import jakarta.servlet.http.HttpServletRequest;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/** Reads a request body once, refusing to hold more than the configured maximum. */
final class BodyReader {

    private BodyReader() {
    }

    /** The whole body, or {@code null} when it is larger than {@code maxBytes}. */
    static byte[] read(HttpServletRequest request, long maxBytes) throws IOException {
        long declared = request.getContentLengthLong();
        if (declared > maxBytes) {
            return null;
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream(declared > 0 ? (int) declared : 1024);
        byte[] buffer = new byte[8192];
        InputStream in = request.getInputStream();
        int read;
        while ((read = in.read(buffer)) != -1) {
            if (body.size() + (long) read > maxBytes) {
                return null;
            }
            body.write(buffer, 0, read);
        }
        return body.toByteArray();
    }
}
