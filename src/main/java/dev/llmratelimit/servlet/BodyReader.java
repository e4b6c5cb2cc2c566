package dev.llmratelimit.servlet;

import jakarta.servlet.http.HttpServletRequest;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Reads a request body once, refusing to hold more than the configured maximum. The buffer grows
 * with the bytes that arrive, never beyond a few KiB from the declared {@code Content-Length}: a client
 * that declares 4 MiB and sends one byte costs a few KiB, not 4 MiB. A body that sends what it declares
 * and fits the first buffer is read into an array of exactly its size.
 */
final class BodyReader {

    /** The largest array the JVM allocates: a larger {@code max-body-size} is held to this. */
    static final long MAX_BUFFER_BYTES = Integer.MAX_VALUE - 8;

    private static final int FIRST_BUFFER_BYTES = 8 * 1024;

    private BodyReader() {
    }

    /** The most bytes a body may have under {@code max-body-size}. */
    static long limit(long maxBodySize) {
        return Math.min(maxBodySize, MAX_BUFFER_BYTES);
    }

    /**
     * The whole body, or {@code null} when it is larger than {@link #limit(long)}.
     *
     * @throws IOException the body could not be read to its end (the client went away, or sent less than it declared)
     */
    static byte[] read(HttpServletRequest request, long maxBodySize) throws IOException {
        long limit = limit(maxBodySize);
        long declared = request.getContentLengthLong();
        if (declared > limit) {
            return null;
        }
        InputStream in = request.getInputStream();
        byte[] buffer = new byte[(int) Math.min(declared >= 0 ? declared : FIRST_BUFFER_BYTES,
                Math.min(FIRST_BUFFER_BYTES, limit))];
        int size = 0;
        while (true) {
            if (size == buffer.length) {
                int next = in.read();
                if (next == -1) {
                    return buffer;
                }
                if (size == limit) {
                    return null;
                }
                buffer = Arrays.copyOf(buffer, (int) Math.min(limit, Math.max(FIRST_BUFFER_BYTES, 2L * size)));
                buffer[size++] = (byte) next;
                continue;
            }
            int read = in.read(buffer, size, buffer.length - size);
            if (read == -1) {
                return Arrays.copyOf(buffer, size);
            }
            size += read;
        }
    }
}
