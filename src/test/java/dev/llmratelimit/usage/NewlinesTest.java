package dev.llmratelimit.usage;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class NewlinesTest {

    /** What the eight-at-a-time search must answer: the first newline of the range, byte by byte. */
    private static int byteByByte(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] == '\n') {
                return i;
            }
        }
        return to;
    }

    @Test
    void findsTheFirstNewlineOfEveryRangeOfEveryArray() {
        // bytes around '\n' (0x0A) in value and in bit pattern, where a word-wide borrow could mislead
        byte[] alphabet = {'\n', '\r', 0x09, 0x0B, 0x0A | (byte) 0x80, 0x00, 0x01, (byte) 0xFF, (byte) 0x8A, 'a', '{', 0x7F};
        Random random = new Random(11);
        int ranges = 0;
        for (int array = 0; array < 3_000; array++) {
            byte[] bytes = new byte[random.nextInt(40)];
            int newlines = random.nextInt(4);
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = random.nextInt(8) < newlines ? alphabet[random.nextInt(alphabet.length)] : (byte) ('a' + i % 26);
            }
            for (int from = 0; from <= bytes.length; from++) {
                for (int to = from; to <= bytes.length; to++) {
                    assertThat(Newlines.indexOf(bytes, from, to)).as("bytes %s [%d, %d)", java.util.Arrays.toString(bytes), from, to)
                            .isEqualTo(byteByByte(bytes, from, to));
                    ranges++;
                }
            }
        }
        assertThat(ranges).isGreaterThan(500_000);
    }

    @Test
    void aNewlineAtEachPlaceOfAWordIsFoundThere() {
        for (int length = 1; length <= 24; length++) {
            for (int at = 0; at < length; at++) {
                byte[] bytes = new byte[length];
                java.util.Arrays.fill(bytes, (byte) 0x0B);
                bytes[at] = '\n';
                assertThat(Newlines.indexOf(bytes, 0, length)).isEqualTo(at);
                assertThat(Newlines.indexOf(bytes, at + 1, length)).isEqualTo(length);
            }
        }
    }
}
