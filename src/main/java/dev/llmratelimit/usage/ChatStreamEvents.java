package dev.llmratelimit.usage;

import java.util.Arrays;

/**
 * Chat-completion and legacy-completion chunks: usage in the last chunk, then {@code data: [DONE]}.
 *
 * <p>A chunk is read only when something needs it. Most of a stream is content chunks, and the
 * usage its last chunk reports makes their text moot: so chunks are held unread, in order, up to
 * {@value #HELD_BYTES} bytes (then the held ones are read and let go), and the usage is looked for
 * from the newest chunk back, when it is asked for. The completion text is read from the held
 * chunks only when it is asked for, which happens only when no usage came. A chunk that may be the
 * usage-only chunk is read at once, since a stream that strips that chunk must know it as it ends:
 * its {@code choices} is an empty array, which JSON can only write as {@code [}, whitespace,
 * {@code ]}, so a chunk without those bytes is not it.
 */
final class ChatStreamEvents implements StreamEvents {

    /** Chunks held unread beyond this many bytes are read, and their text goes to the counter. */
    static final int HELD_BYTES = 32 * 1024;
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

    ChatStreamEvents(CompletionText text) {
        this.text = text;
    }

    @Override
    public Kind read(byte[] data, int offset, int length) {
        if (Arrays.equals(data, offset, offset + length, DONE, 0, DONE.length)) {
            return Kind.END;
        }
        if (!hasEmptyArray(data, offset, offset + length)) {
            hold(data, offset, length);
            return Kind.OTHER;
        }
        StreamChunk chunk = StreamChunk.parse(data, offset, length, null);
        if (chunk != null && chunk.usageOnly()) {
            if (chunk.usage() != null) {
                settle(chunk.usage());
            }
            return Kind.USAGE_ONLY;        // no choice: no text
        }
        hold(data, offset, length);        // read again, with its text, when it is needed
        return Kind.OTHER;
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
            StreamChunk chunk = StreamChunk.parse(held, start(k), heldEnds[k] - start(k), text);
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
        if (size + length > HELD_BYTES) {
            readHeld();
            size = 0;
            if (length > HELD_BYTES) {
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
        StreamChunk chunk = StreamChunk.parse(data, offset, length, text);
        if (chunk != null && chunk.usage() != null) {
            usage = chunk.usage();
        }
    }

    private int start(int k) {
        return k == 0 ? 0 : heldEnds[k - 1];
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
