package dev.llmratelimit.chat;

import dev.llmratelimit.usage.EndpointShape;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

/**
 * docs/hostile-input.md: "one body, one reading". An application reads a JSON body either from its bytes, with the
 * parser detecting the encoding (Jackson databind, JSON-B and JSON-P providers), or as text decoded in
 * a charset ({@code getReader()}: the declared one, ISO-8859-1 when none). A body that reads
 * differently in those ways could name one model to the filter and another to the application.
 *
 * <p>So the body is decoded once in the encoding its bytes show, strictly (malformed bytes have no
 * single reading), and its decision fields read from that text; then it is decoded in each charset an
 * application may use, the way the JDK decoders do (malformed bytes become U+FFFD). A reading that is
 * the same text, or the same text after a byte order mark, needs no second look (a parser skips the
 * mark or fails); any other reading must be valid JSON with exactly the same decision fields, else
 * the body is refused. Transcoding and detecting again could make two readings differ. A body of
 * ASCII bytes alone reads the same in UTF-8, ISO-8859-1 and US-ASCII, so it is read once from its bytes.
 */
final class OneReading {

    private static final char BYTE_ORDER_MARK = '\uFEFF';

    /** Charsets that read each byte below 0x80 as the ASCII character it is. */
    private static final Set<Charset> ASCII_READINGS =
            Set.of(StandardCharsets.UTF_8, StandardCharsets.ISO_8859_1, StandardCharsets.US_ASCII);

    private OneReading() {
    }

    static ChatRequest of(byte[] body, int length, List<Charset> textCharsets, EndpointShape shape)
            throws InvalidChatRequestException {
        BodyEncoding encoding = BodyEncoding.detect(body, length);
        if (encoding == null) {
            throw new InvalidChatRequestException("The request body is not valid JSON: its encoding is neither "
                    + "UTF-8, UTF-16 nor UTF-32.", null);
        }
        if (encoding.isUtf8() && encoding.bomLength() == 0 && isAscii(body, length)
                && ASCII_READINGS.containsAll(textCharsets)) {
            // Every reading of ASCII bytes in these charsets is the same text, and always valid.
            return DecisionFields.readUtf8(body, 0, length, shape);
        }
        String text;
        try {
            text = encoding.decodeStrictly(body, length);
        } catch (CharacterCodingException e) {
            throw new InvalidChatRequestException("The request body is not valid JSON: its bytes are not valid "
                    + encoding.charset().name() + ".", null);
        }
        ChatRequest request = encoding.isUtf8()
                ? DecisionFields.readUtf8(body, encoding.bomLength(), length - encoding.bomLength(), shape)
                : DecisionFields.read(text, shape);
        for (Charset charset : textCharsets) {
            if (charset.equals(encoding.charset()) && encoding.bomLength() == 0) {
                continue;                                   // the same decoding of the same bytes
            }
            String other = new String(body, 0, length, charset);
            if (!sameText(other, text) && !request.equals(readingOrNull(other, shape))) {
                throw new InvalidChatRequestException("The request body reads differently decoded as "
                        + charset.name() + " (its declared charset, or the default of servlet readers when it declares "
                        + "none) than in the encoding of its bytes (" + encoding.charset().name() + "); send UTF-8 "
                        + "JSON, or declare the charset it is in.", null);
            }
        }
        return request;
    }

    private static boolean isAscii(byte[] body, int length) {
        int bits = 0;
        for (int i = 0; i < length; i++) {
            bits |= body[i];
        }
        return bits >= 0;
    }

    private static boolean sameText(String other, String text) {
        int offset = other.length() - text.length();
        return (offset == 0 || offset == 1 && other.charAt(0) == BYTE_ORDER_MARK)
                && other.regionMatches(offset, text, 0, text.length());
    }

    private static ChatRequest readingOrNull(String text, EndpointShape shape) {
        try {
            return DecisionFields.read(text, shape);
        } catch (InvalidChatRequestException e) {
            return null;
        }
    }
}
