package dev.llmratelimit.usage;

import java.util.Arrays;
import java.util.function.Consumer;

/**
 * Chat-completion and legacy-completion chunks: usage in the last chunk, then {@code data: [DONE]}.
 *
 * <p>A chunk is read only when something needs it. Most of a stream is content chunks, and the
 * usage its last chunk reports makes their text moot: so chunks are held unread, in order, up to
 * {@value #HELD_BYTES} bytes (each chunk weighing {@value #HELD_CHUNK_WEIGHT} bytes more; then the
 * held ones are read and let go), and the usage is looked for from the newest chunk back, when it
 * is asked for. The completion text is read from the held chunks only when it is asked for, which
 * happens only when no usage came. A chunk that may be the usage-only chunk is read at once, since a
 * stream that strips that chunk must know it as it ends: its {@code choices} is an empty array, which
 * UTF-8 JSON can only write as {@code [}, whitespace, {@code ]}, so a chunk in UTF-8 without those
 * bytes is not it. Jackson reads UTF-16 and UTF-32 too, found from the first bytes: a chunk is taken
 * for UTF-8 only when it starts with {@code {} and a byte other than 0, as Jackson then takes it.
 * Like the stream's tracker, an instance is used by one thread at a time.
 */
final class ChatStreamEvents implements StreamEvents {

    /** Chunks held unread beyond this many bytes are read, and their text goes to the counter. */
    static final int HELD_BYTES = 32 * 1024;
    /** What holding a chunk costs beside its bytes (its end's place), so that empty chunks are bounded too. */
    static final int HELD_CHUNK_WEIGHT = 16;
    private static final byte[] DONE = {'[', 'D', 'O', 'N', 'E', ']'};

    private final CompletionText text;
    /** The last usable usage of the chunks read so far, in stream order. */
    private Usage usage;
    /** The data of the chunks held unread, one after another; chunk {@code k} ends at {@code heldEnds[k]}. */
    private byte[] held = new byte[0];
    private int[] heldEnds = new int[0];
    private int heldCount;
    /** Held chunks from this one on were not yet looked at for a usage. */
    private int unsearched;
    /** Whether the chunk read at once carried completion text: set by {@link #noteText}. */
    private boolean carriesText;
    private final Consumer<String> noteText = piece -> carriesText |= !piece.isEmpty();
    private final Consumer<String> toText;

    ChatStreamEvents(CompletionText text) {
        this.text = text;
        this.toText = text::append;
    }

    @Override
    public Kind read(byte[] data, int offset, int length) {
        if (Arrays.equals(data, offset, offset + length, DONE, 0, DONE.length)) {
            return Kind.END;
        }
        if (length == 0) {
            return Kind.OTHER;             // no JSON: nothing to read, now or later
        }
        if (isUtf8Object(data, offset, length) && !hasEmptyArray(data, offset, offset + length)) {
            hold(data, offset, length);
            return Kind.OTHER;
        }
        carriesText = false;
        StreamChunk chunk = StreamChunk.parse(data, offset, length, noteText);
        if (chunk != null && chunk.usage() != null) {
            settle(chunk.usage());
        } else if (chunk == null || carriesText) {
            hold(data, offset, length);    // read again, with its text, should no usage come
        }
        return chunk != null && chunk.usageOnly() ? Kind.USAGE_ONLY : Kind.OTHER;
    }

    @Override
    public Usage usage() {
        for (int k = heldCount - 1; k >= unsearched; k--) {
            StreamChunk chunk = StreamChunk.parse(held, start(k), heldEnds[k] - start(k), null);
            if (chunk != null && chunk.usage() != null) {
                settle(chunk.usage());
                return usage;
            }
        }
        unsearched = heldCount;
        return usage;
    }

    @Override
    public void readHeld() {
        for (int k = 0; k < heldCount; k++) {
            StreamChunk chunk = StreamChunk.parse(held, start(k), heldEnds[k] - start(k), toText);
            if (chunk != null && chunk.usage() != null) {
                usage = chunk.usage();
            }
        }
        heldCount = 0;
        unsearched = 0;
    }

    /**
     * A usage newer than every chunk held: it is the stream's usage unless a later one comes, and a
     * stream with a usage needs no completion text, so the held chunks go unread.
     */
    private void settle(Usage newest) {
        usage = newest;
        heldCount = 0;
        unsearched = 0;
    }

    private void hold(byte[] data, int offset, int length) {
        int size = heldCount == 0 ? 0 : heldEnds[heldCount - 1];
        if (heldWeight() + length + HELD_CHUNK_WEIGHT > HELD_BYTES) {
            readHeld();
            size = 0;
            if (length + HELD_CHUNK_WEIGHT > HELD_BYTES) {
                parseNow(data, offset, length);
                return;
            }
        }
        if (size + length > held.length) {
            held = Arrays.copyOf(held, Math.min(HELD_BYTES, Math.max(2 * held.length, size + length)));
        }
        if (heldCount == heldEnds.length) {
            heldEnds = Arrays.copyOf(heldEnds, Math.max(16, 2 * heldCount));
        }
        System.arraycopy(data, offset, held, size, length);
        heldEnds[heldCount++] = size + length;
    }

    private void parseNow(byte[] data, int offset, int length) {
        StreamChunk chunk = StreamChunk.parse(data, offset, length, toText);
        if (chunk != null && chunk.usage() != null) {
            usage = chunk.usage();
        }
    }

    /** The bytes the held chunks weigh against {@link #HELD_BYTES}. */
    int heldWeight() {
        return (heldCount == 0 ? 0 : heldEnds[heldCount - 1]) + heldCount * HELD_CHUNK_WEIGHT;
    }

    private int start(int k) {
        return k == 0 ? 0 : heldEnds[k - 1];
    }

    /** Whether Jackson reads the data as UTF-8 and it starts an object: a {@code {} and a byte other than 0. */
    private static boolean isUtf8Object(byte[] data, int offset, int length) {
        return length >= 2 && data[offset] == '{' && data[offset + 1] != 0;
    }

    /** Whether the bytes hold {@code [}, any JSON whitespace, {@code ]}: an empty array, or such text in a string. */
    static boolean hasEmptyArray(byte[] data, int from, int to) {
        for (int open = ByteSearch.indexOf(data, from, to, (byte) '['); open < to;
                open = ByteSearch.indexOf(data, open + 1, to, (byte) '[')) {
            int i = open + 1;
            while (i < to && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t')) {
                i++;
            }
            if (i < to && data[i] == ']') {
                return true;
            }
        }
        return false;
    }
}
