package dev.llmratelimit.outbound;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A response body read through its {@link OutboundExchange.ResponseWatch}: the caller reads what the watch
 * passes on; the end of the stream settles the permit, and closing it before the end counts as cut.
 * A 429's body is read at once (its first 64 KiB), so its pause applies even if the caller never reads it.
 */
public final class WatchedInputStream extends InputStream {

    private static final int CHUNK = 8192;
    private static final int READ_AT_ONCE_BYTES = 64 * 1024;

    private final InputStream in;
    private final OutboundExchange.ResponseWatch watch;
    private final ByteArrayOutputStream passed = new ByteArrayOutputStream();
    private final byte[] chunk = new byte[CHUNK];
    private ByteArrayInputStream ready = new ByteArrayInputStream(new byte[0]);
    private boolean ended;
    private boolean closed;

    public WatchedInputStream(InputStream in, OutboundExchange.ResponseWatch watch, boolean readAtOnce) throws IOException {
        this.in = in;
        this.watch = watch;
        if (readAtOnce) {
            while (ready.available() < READ_AT_ONCE_BYTES && fill()) {
                // the body goes through the watch now
            }
        }
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        if (length == 0) {
            return 0;
        }
        while (ready.available() == 0) {
            if (ended || !fill()) {
                return -1;
            }
        }
        return ready.read(buffer, offset, length);
    }

    @Override
    public int available() {
        return ready.available();
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        if (!ended) {
            watch.cut();
        }
        in.close();
    }

    /** Reads one chunk through the watch; false at the end (the watch has then ended too). */
    private boolean fill() throws IOException {
        if (ended) {
            return false;
        }
        int n;
        try {
            n = in.read(chunk);
        } catch (IOException e) {
            watch.cut();
            ended = true;
            throw e;
        }
        if (n < 0) {
            ended = true;
            watch.end(passed);
        } else {
            watch.write(chunk, 0, n, passed);
        }
        ready = new ByteArrayInputStream(readyAndRest());
        return n >= 0 || ready.available() > 0;
    }

    private byte[] readyAndRest() {
        byte[] rest = ready.readAllBytes();
        byte[] fresh = passed.toByteArray();
        passed.reset();
        if (rest.length == 0) {
            return fresh;
        }
        byte[] joined = new byte[rest.length + fresh.length];
        System.arraycopy(rest, 0, joined, 0, rest.length);
        System.arraycopy(fresh, 0, joined, rest.length, fresh.length);
        return joined;
    }
}
