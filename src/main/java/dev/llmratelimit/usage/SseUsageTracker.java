package dev.llmratelimit.usage;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Follows a {@code text/event-stream} response as the application writes it, in chunks of any size
 * (events and lines may be split anywhere; lines end with {@code \n} or {@code \r\n}), and forwards it
 * to the client. It takes the usage from the events that carry it, notices the event that ends the
 * stream ({@code data: [DONE]} of a chat stream; see {@link StreamEvents} for the other shapes), and
 * counts the completion text streamed so far (for a stream that ends without usage). Data that is not
 * well-formed JSON is forwarded and ignored.
 * <p>
 * Memory stays bounded: the current event is kept, up to {@code maxEventBytes} (a longer event is
 * forwarded as it comes and not parsed), and a chat stream's chunks read only when needed, up to
 * {@value ChatStreamEvents#HELD_BYTES} bytes. One instance per response, used by one thread at a time.
 */
public final class SseUsageTracker {

    public enum Mode {
        /** Every byte is forwarded as written, at once; the tracker parses a copy. */
        PASS_THROUGH,
        /**
         * For a request the filter made ask for usage: the usage-only event (a {@code usage} object and
         * {@code "choices":[]}) is removed, blank line included. The bytes of the current incomplete event
         * are held back until it ends; every completed event is forwarded at once.
         */
        STRIP_USAGE_EVENT
    }

    public static final int DEFAULT_MAX_EVENT_BYTES = 1 << 20;

    /** Completed events held in strip mode are forwarded before they exceed this (one huge write). */
    private static final int FORWARD_BATCH_BYTES = 64 * 1024;
    private static final byte[] DATA_FIELD = {'d', 'a', 't', 'a', ':'};
    /** Room for a typical chunk event; the buffer doubles for larger ones. */
    private static final int FIRST_BUFFER_BYTES = 512;
    private static final int LINE_EMPTY = 0;
    private static final int LINE_CR = 1;
    private static final int LINE_TEXT = 2;

    private final Mode mode;
    private final Runnable onDone;
    private final int maxEventBytes;
    private final CompletionText completionText;
    private final StreamEvents events;

    /**
     * PASS_THROUGH: the current event. STRIP_USAGE_EVENT: completed events not yet forwarded in
     * [0, eventStart), then the current event in [eventStart, size).
     */
    private byte[] buffer = new byte[FIRST_BUFFER_BYTES];
    private int size;
    private int eventStart;
    private long eventLength;
    private boolean eventOversized;

    /**
     * What the current line holds so far: nothing or exactly {@code \r} (a newline now ends the event),
     * or anything else.
     */
    private int line = LINE_EMPTY;

    private boolean sawDone;

    /**
     * @param counter the tokenizer of the request's model, for {@link #streamedCompletionTokens()}
     * @param onDone  run once, on the writing thread, when the event that ends the stream is complete and
     *                before the bytes that complete it are forwarded: the moment to record the usage so
     *                that it is counted before the client has the whole response. Must not throw.
     */
    public SseUsageTracker(Mode mode, TokenCounter counter, Runnable onDone) {
        this(EndpointShape.CHAT, mode, counter, onDone, DEFAULT_MAX_EVENT_BYTES);
    }

    /** A tracker for the event stream of the given endpoint shape. */
    public SseUsageTracker(EndpointShape shape, Mode mode, TokenCounter counter, Runnable onDone) {
        this(shape, mode, counter, onDone, DEFAULT_MAX_EVENT_BYTES);
    }

    SseUsageTracker(Mode mode, TokenCounter counter, Runnable onDone, int maxEventBytes) {
        this(EndpointShape.CHAT, mode, counter, onDone, maxEventBytes);
    }

    SseUsageTracker(EndpointShape shape, Mode mode, TokenCounter counter, Runnable onDone, int maxEventBytes) {
        this.mode = mode;
        this.onDone = onDone;
        this.maxEventBytes = maxEventBytes;
        this.completionText = new CompletionText(counter);
        this.events = StreamEvents.of(shape, completionText);
    }

    /** Takes bytes the application wrote and forwards to {@code client} what it may see so far. */
    public void write(byte[] bytes, int offset, int length, OutputStream client) throws IOException {
        int end = offset + length;
        int pieceStart = offset;
        int lineStart = offset;
        for (int newline = ByteSearch.indexOf(bytes, offset, end, (byte) '\n'); newline < end;
                newline = ByteSearch.indexOf(bytes, lineStart, end, (byte) '\n')) {
            boolean blankLine = lineWith(bytes, lineStart, newline) != LINE_TEXT;
            line = LINE_EMPTY;
            lineStart = newline + 1;
            if (blankLine) {
                take(bytes, pieceStart, lineStart - pieceStart);
                pieceStart = lineStart;
                completeEvent(client);
            }
        }
        line = lineWith(bytes, lineStart, end);
        take(bytes, pieceStart, end - pieceStart);
        if (mode == Mode.PASS_THROUGH) {
            client.write(bytes, offset, length);
        } else {
            forwardCompleted(client);
        }
    }

    /** What the current line holds once {@code bytes[from, to)}, none of them a newline, are added to it. */
    private int lineWith(byte[] bytes, int from, int to) {
        if (from == to) {
            return line;
        }
        return line == LINE_EMPTY && to - from == 1 && bytes[from] == '\r' ? LINE_CR : LINE_TEXT;
    }

    /**
     * Ends the stream: an event left without its blank line is handled as complete (and, in strip mode,
     * forwarded unless it is the usage-only event). Does not flush or close {@code client}.
     */
    public void finish(OutputStream client) throws IOException {
        if (eventLength > 0) {
            completeEvent(client);
        }
        forwardCompleted(client);
    }

    /** The usage of the last event that carried a usable one. */
    public Optional<Usage> usage() {
        return Optional.ofNullable(events.usage());
    }

    /**
     * The prompt tokens the stream reported before its final usage (Anthropic {@code message_start},
     * a Responses {@code response.created} or {@code response.in_progress} that carries usage), or,
     * once the usage is known, its prompt; empty when the stream reported none.
     */
    public OptionalLong reportedPromptTokens() {
        Usage finalUsage = events.usage();
        if (finalUsage != null) {
            return OptionalLong.of(finalUsage.promptTokens());
        }
        long reported = events.reportedPromptTokens();
        return reported < 0 ? OptionalLong.empty() : OptionalLong.of(reported);
    }

    public boolean sawDone() {
        return sawDone;
    }

    /**
     * Tokens of the completion text streamed so far, with the counter given at construction: what a
     * stream that reported no usage is charged for. Once a usage came, the text is no longer kept.
     */
    public long streamedCompletionTokens() {
        events.readHeld();
        return completionText.tokens();
    }

    private void take(byte[] bytes, int offset, int length) {
        if (length == 0) {
            return;
        }
        eventLength += length;
        if (!eventOversized && eventLength > maxEventBytes) {
            eventOversized = true;
            if (mode == Mode.PASS_THROUGH) {
                size = 0;
            }
        }
        if (mode == Mode.STRIP_USAGE_EVENT || !eventOversized) {
            append(bytes, offset, length);
        }
    }

    private void completeEvent(OutputStream client) throws IOException {
        boolean strip = !eventOversized && handleEvent(eventStart, size);
        if (mode == Mode.PASS_THROUGH) {
            size = 0;
        } else {
            size = strip ? eventStart : size;
            eventStart = size;
            if (eventStart >= FORWARD_BATCH_BYTES) {
                forwardCompleted(client);
            }
        }
        eventLength = 0;
        eventOversized = false;
    }

    /** Strip mode: forwards the completed events, and the current event too once it is oversized. */
    private void forwardCompleted(OutputStream client) throws IOException {
        int ready = eventOversized ? size : eventStart;
        if (ready == 0) {
            return;
        }
        client.write(buffer, 0, ready);
        System.arraycopy(buffer, ready, buffer, 0, size - ready);
        size -= ready;
        eventStart = Math.max(0, eventStart - ready);
    }

    /** Returns whether the event in buffer[from, to) is the usage-only event. */
    private boolean handleEvent(int from, int to) {
        int dataStart = -1;
        int dataEnd = -1;
        ByteArrayOutputStream joined = null;
        int lineStart = from;
        while (lineStart < to) {
            int newline = ByteSearch.indexOf(buffer, lineStart, to, (byte) '\n');
            int next = newline + 1;
            int lineEnd = newline > lineStart && buffer[newline - 1] == '\r' ? newline - 1 : newline;
            if (isDataLine(lineStart, lineEnd)) {
                int valueStart = lineStart + DATA_FIELD.length;
                if (valueStart < lineEnd && buffer[valueStart] == ' ') {
                    valueStart++;
                }
                if (dataStart < 0) {
                    dataStart = valueStart;
                    dataEnd = lineEnd;
                } else {
                    // several data lines form one value, joined by newlines (rare in practice)
                    if (joined == null) {
                        joined = new ByteArrayOutputStream();
                        joined.write(buffer, dataStart, dataEnd - dataStart);
                    }
                    joined.write('\n');
                    joined.write(buffer, valueStart, lineEnd - valueStart);
                }
            }
            lineStart = next;
        }
        if (dataStart < 0) {
            return false;
        }
        if (joined != null) {
            return handleData(joined.toByteArray(), 0, joined.size());
        }
        return handleData(buffer, dataStart, dataEnd - dataStart);
    }

    private boolean handleData(byte[] data, int offset, int length) {
        StreamEvents.Kind kind = events.read(data, offset, length);
        if (kind == StreamEvents.Kind.END && !sawDone) {
            sawDone = true;
            onDone.run();
        }
        return kind == StreamEvents.Kind.USAGE_ONLY;
    }

    private boolean isDataLine(int from, int to) {
        return to - from >= DATA_FIELD.length
                && Arrays.equals(buffer, from, from + DATA_FIELD.length, DATA_FIELD, 0, DATA_FIELD.length);
    }

    private void append(byte[] bytes, int offset, int length) {
        if (size + length > buffer.length) {
            buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, size + length));
        }
        System.arraycopy(bytes, offset, buffer, size, length);
        size += length;
    }
}
