package dev.llmratelimit.usage;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Finds {@code \n} in bytes eight at a time: an event stream is mostly long JSON lines, and a byte
 * loop over them cost a third of following a stream.
 */
final class Newlines {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long NEWLINES = 0x0A0A0A0A0A0A0A0AL;
    private static final long LOW_BITS = 0x0101010101010101L;
    private static final long HIGH_BITS = 0x8080808080808080L;

    private Newlines() {
    }

    /** The index of the first {@code \n} in {@code bytes[from, to)}, or {@code to} when there is none. */
    static int indexOf(byte[] bytes, int from, int to) {
        int i = from;
        for (; i + Long.BYTES <= to; i += Long.BYTES) {
            long word = (long) LONGS.get(bytes, i) ^ NEWLINES;   // a newline's byte is now 0
            long zeros = (word - LOW_BITS) & ~word & HIGH_BITS;  // the lowest set bit marks the first zero byte exactly
            if (zeros != 0) {
                return i + (Long.numberOfTrailingZeros(zeros) >>> 3);
            }
        }
        for (; i < to; i++) {
            if (bytes[i] == '\n') {
                return i;
            }
        }
        return to;
    }
}
