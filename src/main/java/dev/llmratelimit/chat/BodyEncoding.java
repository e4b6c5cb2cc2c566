package dev.llmratelimit.chat;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The charset of a JSON body, detected from its first bytes by the rules Jackson applies (a byte
 * order mark, else the pattern of zero bytes that ASCII JSON leaves in UTF-16 and UTF-32).
 *
 * @param bomLength the bytes of the byte order mark, which are not part of the text
 */
record BodyEncoding(Charset charset, int bomLength) {

    private static final Charset UTF_32BE = Charset.forName("UTF-32BE");
    private static final Charset UTF_32LE = Charset.forName("UTF-32LE");

    /** Returns null for the UCS-4 byte orders Jackson refuses too (2143, 3412). */
    static BodyEncoding detect(byte[] body, int length) {
        if (length >= 4) {
            int quad = (body[0] & 0xFF) << 24 | (body[1] & 0xFF) << 16 | (body[2] & 0xFF) << 8 | (body[3] & 0xFF);
            if (quad == 0x0000FEFF) {
                return new BodyEncoding(UTF_32BE, 4);
            }
            if (quad == 0xFFFE0000) {
                return new BodyEncoding(UTF_32LE, 4);
            }
            if (quad == 0x0000FFFE || quad == 0xFEFF0000) {
                return null;
            }
            int high = quad >>> 16;
            if (high == 0xFEFF) {
                return new BodyEncoding(StandardCharsets.UTF_16BE, 2);
            }
            if (high == 0xFFFE) {
                return new BodyEncoding(StandardCharsets.UTF_16LE, 2);
            }
            if (quad >>> 8 == 0xEFBBBF) {
                return new BodyEncoding(StandardCharsets.UTF_8, 3);
            }
            if (quad >> 8 == 0) {
                return new BodyEncoding(UTF_32BE, 0);
            }
            if ((quad & 0x00FFFFFF) == 0) {
                return new BodyEncoding(UTF_32LE, 0);
            }
            if ((quad & ~0x00FF0000) == 0 || (quad & ~0x0000FF00) == 0) {
                return null;
            }
            return utf16OrUtf8(high);
        }
        if (length >= 2) {
            return utf16OrUtf8((body[0] & 0xFF) << 8 | (body[1] & 0xFF));
        }
        return new BodyEncoding(StandardCharsets.UTF_8, 0);
    }

    private static BodyEncoding utf16OrUtf8(int firstTwoBytes) {
        if ((firstTwoBytes & 0xFF00) == 0) {
            return new BodyEncoding(StandardCharsets.UTF_16BE, 0);
        }
        if ((firstTwoBytes & 0x00FF) == 0) {
            return new BodyEncoding(StandardCharsets.UTF_16LE, 0);
        }
        return new BodyEncoding(StandardCharsets.UTF_8, 0);
    }

    boolean isUtf8() {
        return charset.equals(StandardCharsets.UTF_8);
    }

    /**
     * The text of the body (byte order mark excluded), decoded strictly: parsers disagree on malformed
     * input (Jackson reads an overlong UTF-8 sequence as the character it spells, the JDK decoders as
     * U+FFFD), so malformed input has no one reading and is refused.
     */
    String decodeStrictly(byte[] body, int length) throws CharacterCodingException {
        return charset.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(body, bomLength, length - bomLength))
                .toString();
    }
}
