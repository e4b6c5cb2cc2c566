package dev.llmratelimit.interceptor.jaxrs;

import dev.llmratelimit.interceptor.AdmittedCall;
import dev.llmratelimit.interceptor.UsageRecordingStream;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.SseEventSink;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionStage;

/**
 * The {@link SseEventSink} a {@code @RateLimited} resource method gets instead of the container's: each
 * event whose data is a {@code String} is read for usage (as its {@code data:} lines) before it is
 * sent; closing the sink finishes the call. Data of other types is serialised by JAX-RS later and not
 * seen here.
 */
final class UsageRecordingEventSink implements SseEventSink {

    private static final byte[] DATA = "data: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NEWLINE = {'\n'};

    private final SseEventSink sink;
    private final AdmittedCall call;
    private final UsageRecordingStream events;
    private boolean finished;

    UsageRecordingEventSink(SseEventSink sink, AdmittedCall call) {
        this.sink = sink;
        this.call = call;
        this.events = call.recordingStream(OutputStream.nullOutputStream());
    }

    @Override
    public CompletionStage<?> send(OutboundSseEvent event) {
        if (event.getData() instanceof String data) {
            observe(data);
        }
        return sink.send(event);
    }

    private synchronized void observe(String data) {
        try {
            for (String line : data.split("\n", -1)) {
                events.write(DATA);
                events.write(line.getBytes(StandardCharsets.UTF_8));
                events.write(NEWLINE);
            }
            events.write(NEWLINE);
        } catch (IOException e) {
            throw new IllegalStateException(e);   // the null stream does not throw
        }
    }

    @Override
    public boolean isClosed() {
        return sink.isClosed();
    }

    @Override
    public void close() {
        finish();
        sink.close();
    }

    private synchronized void finish() {
        if (finished) {
            return;
        }
        finished = true;
        try {
            events.finish();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        call.finish(events, null);
    }
}
