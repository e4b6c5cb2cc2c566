package dev.llmratelimit.servlet;

import dev.llmratelimit.http.RateLimitHeaderValues;
import dev.llmratelimit.usage.EndpointShape;
import dev.llmratelimit.usage.JsonBodyObserver;
import dev.llmratelimit.usage.ResponseBodyObserver;
import dev.llmratelimit.usage.SseBodyObserver;
import dev.llmratelimit.usage.Usage;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * The response as the application writes it: the body passes through a {@link ResponseBodyObserver}
 * chosen from the status and content type at the first write.
 */
final class UsageCapturingResponse extends HttpServletResponseWrapper {

    private final Consumer<Usage> onUsage;
    private final String model;
    private final EndpointShape shape;
    private final boolean stripUsageEvent;
    private ResponseBodyObserver observer;
    private ObservedOutputStream stream;
    private PrintWriter writer;
    private Charset writerCharset;
    private volatile boolean clientFailed;
    private boolean bodyFinished;

    UsageCapturingResponse(HttpServletResponse response, String model, EndpointShape shape, boolean stripUsageEvent,
                           Consumer<Usage> onUsage) {
        super(response);
        this.model = model;
        this.shape = shape;
        this.stripUsageEvent = stripUsageEvent;
        this.onUsage = onUsage;
    }

    @Override
    public ServletOutputStream getOutputStream() throws IOException {
        if (writer != null) {
            throw new IllegalStateException("getWriter() has already been called for this response");
        }
        return stream();
    }

    @Override
    public PrintWriter getWriter() throws IOException {
        if (writer == null) {
            if (stream != null) {
                throw new IllegalStateException("getOutputStream() has already been called for this response");
            }
            String encoding = getCharacterEncoding();
            writerCharset = encoding == null ? StandardCharsets.ISO_8859_1 : Charset.forName(encoding);
            // As the container does when it hands out a writer: the Content-Type names the charset.
            super.setCharacterEncoding(writerCharset.name());
            writer = new PrintWriter(new OutputStreamWriter(stream(), writerCharset));
        }
        return writer;
    }

    /** After {@link #getWriter()} the charset is fixed, as the Servlet specification says. */
    @Override
    public void setCharacterEncoding(String charset) {
        if (writer == null) {
            super.setCharacterEncoding(charset);
        }
    }

    @Override
    public void setContentType(String type) {
        super.setContentType(type);
        if (writer != null) {
            super.setCharacterEncoding(writerCharset.name());
        }
    }

    @Override
    public void flushBuffer() throws IOException {
        if (writer != null) {
            writer.flush();
        } else if (stream != null) {
            stream.flush();
        }
        super.flushBuffer();
    }

    @Override
    public void setContentLength(int length) {
        if (!isStrippingStream()) {
            super.setContentLength(length);
        }
    }

    @Override
    public void setContentLengthLong(long length) {
        if (!isStrippingStream()) {
            super.setContentLengthLong(length);
        }
    }

    @Override
    public void setHeader(String name, String value) {
        if (accepts(name)) {
            super.setHeader(name, value);
        }
    }

    @Override
    public void addHeader(String name, String value) {
        if (accepts(name)) {
            super.addHeader(name, value);
        }
    }

    @Override
    public void setIntHeader(String name, int value) {
        if (accepts(name)) {
            super.setIntHeader(name, value);
        }
    }

    @Override
    public void addIntHeader(String name, int value) {
        if (accepts(name)) {
            super.addIntHeader(name, value);
        }
    }

    @Override
    public void setDateHeader(String name, long date) {
        if (accepts(name)) {
            super.setDateHeader(name, date);
        }
    }

    @Override
    public void addDateHeader(String name, long date) {
        if (accepts(name)) {
            super.addDateHeader(name, date);
        }
    }

    /**
     * The filter's {@code x-ratelimit-*} headers describe this limiter, so the application's own
     * (an upstream's, copied by a proxy) are dropped rather than mixed in; a stripped stream's length
     * is no longer the application's.
     */
    private boolean accepts(String name) {
        return !RateLimitHeaderValues.isRateLimitHeader(name)
                && (!isStrippingStream() || !"content-length".equalsIgnoreCase(name));
    }

    private boolean isStrippingStream() {
        return stripUsageEvent && isEventStream();
    }

    private boolean isEventStream() {
        String type = getContentType();
        return type != null && type.regionMatches(true, 0, "text/event-stream", 0, 17);
    }

    private ObservedOutputStream stream() throws IOException {
        if (stream == null) {
            stream = new ObservedOutputStream(super.getOutputStream(), this);
        }
        return stream;
    }

    /** The observer for this body, chosen at the first write. */
    ResponseBodyObserver observer() {
        if (observer == null) {
            int status = getStatus();
            if (status < 200 || status >= 300) {
                observer = ResponseBodyObserver.PASS_THROUGH;
            } else if (isEventStream()) {
                observer = new SseBodyObserver(shape, model, stripUsageEvent, onUsage);
            } else {
                observer = new JsonBodyObserver(shape, onUsage);
            }
        }
        return observer;
    }

    /** The observer that saw the body, or {@code null} when nothing was written. */
    ResponseBodyObserver observerIfWritten() {
        return observer;
    }

    /** The bytes of the body the application has written. */
    long bytesWritten() {
        return stream == null ? 0 : stream.written();
    }

    void clientFailed() {
        clientFailed = true;
    }

    boolean hasClientFailed() {
        return clientFailed;
    }

    /** Forwards anything still held back; called when the application is done with the response. */
    void finishBody() throws IOException {
        if (writer != null) {
            writer.flush();
        }
        finishObserver();
    }

    /** Lets the observer forward what it holds; the stream calls it when the application closes it. */
    void finishObserver() throws IOException {
        if (!bodyFinished && observer != null && stream != null) {
            bodyFinished = true;
            observer.finish(stream.client());
        }
    }
}
