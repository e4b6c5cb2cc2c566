package dev.llmratelimit.usage;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class ByteSearchTest {

    /** What the eight-at-a-time search must answer: the first target of the range, byte by byte. */
    private static int byteByByte(byte[] bytes, int from, int to, byte target) {
        for (int i = from; i < to; i++) {
            if (bytes[i] == target) {
                return i;
            }
        }
        return to;
    }

    @Test
    void findsTheFirstTargetOfEveryRangeOfEveryArray() {
        // targets and bytes near them in value and in bit pattern, where a word-wide borrow could mislead
        byte[] alphabet = {'\n', '\r', 0x09, 0x0B, (byte) 0x8A, 0x00, 0x01, (byte) 0xFF, (byte) 0x80, '[', ']', 'Z', 0x7F};
        byte[] targets = {'\n', '[', 0x00, (byte) 0xFF, (byte) 0x80};
        Random random = new Random(11);
        int ranges = 0;
        for (int array = 0; array < 1_500; array++) {
            byte[] bytes = new byte[random.nextInt(40)];
            int mixed = random.nextInt(4);
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = random.nextInt(8) < mixed ? alphabet[random.nextInt(alphabet.length)] : (byte) ('a' + i % 26);
            }
            byte target = targets[array % targets.length];
            for (int from = 0; from <= bytes.length; from++) {
                for (int to = from; to <= bytes.length; to++) {
                    assertThat(ByteSearch.indexOf(bytes, from, to, target))
                            .as("target %d in %s [%d, %d)", target, Arrays.toString(bytes), from, to)
                            .isEqualTo(byteByByte(bytes, from, to, target));
                    ranges++;
                }
            }
        }
        assertThat(ranges).isGreaterThan(250_000);
    }

    @Test
    void aTargetAtEachPlaceOfAWordIsFoundThere() {
        for (int length = 1; length <= 24; length++) {
            for (int at = 0; at < length; at++) {
                byte[] bytes = new byte[length];
                Arrays.fill(bytes, (byte) 0x0B);
                bytes[at] = '\n';
                assertThat(ByteSearch.indexOf(bytes, 0, length, (byte) '\n')).isEqualTo(at);
                assertThat(ByteSearch.indexOf(bytes, at + 1, length, (byte) '\n')).isEqualTo(length);
            }
        }
    }
}
