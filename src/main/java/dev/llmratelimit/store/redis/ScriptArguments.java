package dev.llmratelimit.store.redis;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The arguments of one {@code admit.lua} or {@code settle.lua} call, written as one MessagePack
 * array and sent as the script's only argument: the script decodes it in one C call
 * ({@code cmsgpack.unpack}, bundled with Redis), numbers already numbers. Per argument,
 * Redisson's encoding and Redis's parsing of a separate argument cost more than the whole decode,
 * so a call of 40 figures is one argument; MessagePack rather than JSON because its numbers are
 * written and read as binary, not digits, and its strings need no escaping.
 */
final class ScriptArguments {

    /** The figures of a part of a call, written once and added to many calls ({@link #add(Fragment)}). */
    record Fragment(byte[] bytes, int count) {
    }

    private byte[] bytes = new byte[256];
    private int length;
    private int count;

    /** The smallest encoding: a fixint for -32..127, else a 32- or 64-bit signed integer. */
    ScriptArguments add(long value) {
        count++;
        if (value >= -32 && value <= 127) {
            room(1);
            bytes[length++] = (byte) value;
        } else if (value == (int) value) {
            room(5);
            bytes[length++] = (byte) 0xd2;
            writeBigEndian(value, 4);
        } else {
            room(9);
            bytes[length++] = (byte) 0xd3;
            writeBigEndian(value, 8);
        }
        return this;
    }

    /** A 64-bit float, which Lua reads as the same double. */
    ScriptArguments add(double value) {
        count++;
        room(9);
        bytes[length++] = (byte) 0xcb;
        writeBigEndian(Double.doubleToRawLongBits(value), 8);
        return this;
    }

    /** 1 or 0. */
    ScriptArguments add(boolean value) {
        return add(value ? 1L : 0L);
    }

    ScriptArguments add(String text) {
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        count++;
        room(5 + utf8.length);
        if (utf8.length < 32) {
            bytes[length++] = (byte) (0xa0 | utf8.length);
        } else if (utf8.length < 1 << 8) {
            bytes[length++] = (byte) 0xd9;
            writeBigEndian(utf8.length, 1);
        } else if (utf8.length < 1 << 16) {
            bytes[length++] = (byte) 0xda;
            writeBigEndian(utf8.length, 2);
        } else {
            bytes[length++] = (byte) 0xdb;
            writeBigEndian(utf8.length, 4);
        }
        System.arraycopy(utf8, 0, bytes, length, utf8.length);
        length += utf8.length;
        return this;
    }

    /** Figures written before (a {@link #fragment}), as the next ones. */
    ScriptArguments add(Fragment fragment) {
        room(fragment.bytes.length);
        System.arraycopy(fragment.bytes, 0, bytes, length, fragment.bytes.length);
        length += fragment.bytes.length;
        count += fragment.count;
        return this;
    }

    /** The figures so far, to be added to other arguments. */
    Fragment fragment() {
        return new Fragment(Arrays.copyOf(bytes, length), count);
    }

    /** The script's argument: the one array. */
    byte[] toBytes() {
        int header = count < 16 ? 1 : count < 1 << 16 ? 3 : 5;
        byte[] array = new byte[header + length];
        if (header == 1) {
            array[0] = (byte) (0x90 | count);
        } else if (header == 3) {
            array[0] = (byte) 0xdc;
            array[1] = (byte) (count >>> 8);
            array[2] = (byte) count;
        } else {
            array[0] = (byte) 0xdd;
            for (int i = 0; i < 4; i++) {
                array[1 + i] = (byte) (count >>> (24 - 8 * i));
            }
        }
        System.arraycopy(bytes, 0, array, header, length);
        return array;
    }

    private void writeBigEndian(long value, int size) {
        for (int i = size - 1; i >= 0; i--) {
            bytes[length++] = (byte) (value >>> (8 * i));
        }
    }

    private void room(int more) {
        if (length + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
        }
    }
}
