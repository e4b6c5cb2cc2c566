package dev.llmratelimit.store.redis;

import java.nio.charset.StandardCharsets;

/** The Redis Cluster hash slot of a key: CRC16 (XMODEM) of its hash tag, modulo 16384. */
final class HashSlot {

    private HashSlot() {
    }

    /** @param tag a hash tag with its braces, as {@link GroupKeys#tag()} gives it */
    static int ofTag(String tag) {
        byte[] bytes = tag.substring(1, tag.length() - 1).getBytes(StandardCharsets.UTF_8);
        int crc = 0;
        for (byte b : bytes) {
            crc ^= (b & 0xff) << 8;
            for (int i = 0; i < 8; i++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
                crc &= 0xffff;
            }
        }
        return crc & 16383;
    }
}
