package dev.llmratelimit.servlet;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.Charset;
import java.util.Collections;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;

/**
 * The request as the application sees it: the body the filter read once, served again through
 * {@link #getInputStream()} or {@link #getReader()}, with a matching content length.
 */
final class BufferedBodyRequest extends HttpServletRequestWrapper {

    private final byte[] body;
    private final Exchange exchange;
    private boolean streamTaken;
    private boolean readerTaken;

    /** @param exchange the admitted request's exchange, or {@code null} when nothing is to be recorded */
    BufferedBodyRequest(HttpServletRequest request, byte[] body, Exchange exchange) {
        super(request);
        this.body = body;
        this.exchange = exchange;
    }

    @Override
    public ServletInputStream getInputStream() {
        if (readerTaken) {
            throw new IllegalStateException("getReader() has already been called for this request");
        }
        streamTaken = true;
        return new BodyInputStream(body);
    }

    /** @throws java.io.UnsupportedEncodingException for a charset the JVM does not know, as containers do */
    @Override
    public BufferedReader getReader() throws IOException {
        if (streamTaken) {
            throw new IllegalStateException("getInputStream() has already been called for this request");
        }
        readerTaken = true;
        Charset charset = DeclaredCharset.forReader(getCharacterEncoding());
        return new BufferedReader(new InputStreamReader(new ByteArrayInputStream(body), charset));
    }

    @Override
    public int getContentLength() {
        return body.length;
    }

    @Override
    public long getContentLengthLong() {
        return body.length;
    }

    @Override
    public String getHeader(String name) {
        if (isContentLength(name)) {
            return Integer.toString(body.length);
        }
        return hidesEncoding(name) ? null : super.getHeader(name);
    }

    @Override
    public Enumeration<String> getHeaders(String name) {
        if (isContentLength(name)) {
            return Collections.enumeration(List.of(Integer.toString(body.length)));
        }
        return hidesEncoding(name) ? Collections.emptyEnumeration() : super.getHeaders(name);
    }

    @Override
    public int getIntHeader(String name) {
        return isContentLength(name) ? body.length : super.getIntHeader(name);
    }

    /** Async writes must go through the capturing response too, and completion must settle the usage. */
    @Override
    public AsyncContext startAsync() {
        return exchange == null ? super.startAsync() : startAsync(this, exchange.response());
    }

    @Override
    public AsyncContext startAsync(ServletRequest request, ServletResponse response) {
        AsyncContext context = super.startAsync(request, response);
        if (exchange != null) {
            context.addListener(exchange);
        }
        return context;
    }

    @Override
    public Enumeration<String> getHeaderNames() {
        if (exchange == null) {
            return super.getHeaderNames();
        }
        List<String> names = new ArrayList<>();
        for (Enumeration<String> all = super.getHeaderNames(); all.hasMoreElements(); ) {
            String name = all.nextElement();
            if (!"accept-encoding".equalsIgnoreCase(name)) {
                names.add(name);
            }
        }
        return Collections.enumeration(names);
    }

    /**
     * A measured request hides {@code Accept-Encoding} from the application: a body it compressed
     * itself would carry no readable usage, so a client could choose not to be charged. Compression
     * by the container, after the filter, is unaffected.
     */
    private boolean hidesEncoding(String name) {
        return exchange != null && "accept-encoding".equalsIgnoreCase(name);
    }

    private static boolean isContentLength(String name) {
        return "content-length".equalsIgnoreCase(name);
    }

    /**
     * The body as a non-blocking-capable stream: all of it is available at once, and reading it whole
     * copies it once instead of through the generic stream's growing buffers.
     */
    private static final class BodyInputStream extends ServletInputStream {
        private final ByteArrayInputStream in;

        BodyInputStream(byte[] body) {
            this.in = new ByteArrayInputStream(body);
        }

        @Override
        public int read() {
            return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) {
            return in.read(b, off, len);
        }

        @Override
        public byte[] readAllBytes() {
            return in.readAllBytes();
        }

        @Override
        public long transferTo(OutputStream out) throws IOException {
            return in.transferTo(out);
        }

        @Override
        public int available() {
            return in.available();
        }

        @Override
        public boolean isFinished() {
            return in.available() == 0;
        }

        @Override
        public boolean isReady() {
            return true;
        }

        @Override
        public void setReadListener(ReadListener listener) {
            try {
                if (!isFinished()) {
                    listener.onDataAvailable();
                }
                listener.onAllDataRead();
            } catch (IOException e) {
                listener.onError(e);
            }
        }
    }
}
