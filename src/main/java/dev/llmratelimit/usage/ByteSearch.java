package dev.llmratelimit.usage;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Finds a byte eight at a time: an event stream is mostly long JSON lines, and a byte loop over
 * them cost a third of following a stream.
 */
final class ByteSearch {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long LOW_BITS = 0x0101010101010101L;
    private static final long HIGH_BITS = 0x8080808080808080L;

    private ByteSearch() {
    }

    /** The index of the first {@code target} in {@code bytes[from, to)}, or {@code to} when there is none. */
    static int indexOf(byte[] bytes, int from, int to, byte target) {
        long targets = (target & 0xFFL) * LOW_BITS;
        int i = from;
        for (; i + Long.BYTES <= to; i += Long.BYTES) {
            long word = (long) LONGS.get(bytes, i) ^ targets;       // a target byte is now 0
            long zeros = (word - LOW_BITS) & ~word & HIGH_BITS;     // the lowest set bit marks the first zero byte exactly
            if (zeros != 0) {
                return i + (Long.numberOfTrailingZeros(zeros) >>> 3);
            }
        }
        for (; i < to; i++) {
            if (bytes[i] == target) {
                return i;
            }
        }
        return to;
    }
}
