package dev.llmratelimit.interceptor;

import dev.llmratelimit.usage.EndpointShape;
import dev.llmratelimit.usage.JsonBodyObserver;
import dev.llmratelimit.usage.ResponseBodyObserver;
import dev.llmratelimit.usage.SseBodyObserver;
import dev.llmratelimit.usage.Usage;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * The stream a {@link RateLimited} method's streamed body is written through, unchanged. Its first
 * byte that is not white space tells the format: <code>{</code> starts a JSON response (of a chat,
 * completion or embeddings shape), anything else a server-sent event stream, whose first event name
 * tells its shape ({@code event: message_start} Anthropic Messages, {@code event: response.*} the
 * Responses API, else chat or legacy completions). The usage is reported as soon as the chunk that completes it is written,
 * before that chunk is forwarded.
 */
public final class UsageRecordingStream extends OutputStream {

    private final OutputStream client;
    private final String model;
    private final Consumer<Usage> onUsage;
    private ResponseBodyObserver observer;
    private boolean finished;
    private long written;

    UsageRecordingStream(OutputStream client, String model, Consumer<Usage> onUsage) {
        this.client = client;
        this.model = model;
        this.onUsage = onUsage;
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
        written += length;
        if (observer == null) {
            int first = firstNonWhiteSpace(bytes, offset, length);
            if (first < 0) {
                client.write(bytes, offset, length);
                return;
            }
            observer = bytes[first] == '{' ? new JsonBodyObserver(onUsage)
                    : new SseBodyObserver(streamShape(bytes, first, offset + length), model, false, onUsage);
        }
        observer.write(bytes, offset, length, client);
    }

    @Override
    public void flush() throws IOException {
        client.flush();
    }

    /** Ends the body: the observer sees an event left without its blank line. Does not close the client. */
    public void finish() throws IOException {
        if (!finished && observer != null) {
            finished = true;
            observer.finish(client);
        }
    }

    @Override
    public void close() throws IOException {
        finish();
        client.close();
    }

    /** The bytes written through this stream. */
    long written() {
        return written;
    }

    ResponseBodyObserver observer() {
        return observer;
    }

    private static EndpointShape streamShape(byte[] bytes, int from, int to) {
        String start = new String(bytes, from, Math.min(to - from, 32), StandardCharsets.US_ASCII);
        if (start.startsWith("event: message_start") || start.startsWith("event:message_start")) {
            return EndpointShape.MESSAGES;
        }
        return start.startsWith("event: response.") || start.startsWith("event:response.")
                ? EndpointShape.RESPONSES : EndpointShape.CHAT;
    }

    private static int firstNonWhiteSpace(byte[] bytes, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            byte b = bytes[i];
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                return i;
            }
        }
        return -1;
    }
}
