package dev.llmratelimit.usage;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.async.ByteArrayFeeder;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tokenizer against Jackson's non-blocking parser, the reader it stands in for: seeded generated
 * bodies, valid and mutated, cut into random chunks, must give the tokens Jackson gives for the whole
 * body, stop at the same place and be refused alike. Jackson is fed each body whole: cut right after a
 * colon, it reads {@code {"a":}} as an object (its chunk-boundary slip), which the tokenizer never does.
 * Mutations never insert the byte 0xFF: Jackson pads the last four-byte group of a name with 0xFF, so a
 * malformed name that starts with it reads as a shorter name seen before ({@code "\xFFd"} as {@code "d"}).
 */
class ChunkedJsonTokenizerTest {

    private static final JsonFactory JACKSON = new JsonFactory();
    private static final int NAME_DEPTH = 3;

    private static final String[] NAMES = {"usage", "prompt_tokens", "completion_tokens", "prompt_tokens_details",
            "cached_tokens", "input_tokens", "us\\u0061ge", "usage\\n", "caf\u00e9", "", "id", "choices", "a\\\"b",
            "prompt_tokens_", "prompt_token", "prompt\\u005ftokens"};
    /** The names the tokenizer is asked to tell as themselves. */
    private static final String[] KNOWN = {"usage", "prompt_tokens", "completion_tokens", "prompt_tokens_details",
            "cached_tokens", "a\"b", "usage\n"};
    private static final String[] STRINGS = {"", "Hello from the demo model.", "tab\\tquote\\\"slash\\/", "\\u00e9\\uD83D\\uDE00",
            "caf\u00e9 \u4e2d\u6587 \uD83D\uDE00", "\\\\", "x".repeat(300)};
    private static final String[] NUMBERS = {"0", "-0", "7", "-12", "123456789", "9223372036854775807",
            "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "123456789012345678901234567890",
            "1.5", "-0.0", "1e3", "2E-2", "3.25e+10", "0.1"};
    private static final String[] WHITESPACE = {"", "", " ", "\n", "\r\n\t "};

    @Test
    void generatedBodiesReadAsJacksonReadsThem() {
        Random random = new Random(20261207);
        for (int i = 0; i < 3000; i++) {
            byte[] body = body(random);
            List<String> reference = jackson(body, List.of(body.length));
            for (int cut = 0; cut < 4; cut++) {
                assertThat(tokenizer(body, chunks(random, body.length)))
                        .as("%s", new String(body, StandardCharsets.UTF_8)).isEqualTo(reference);
                assertThat(reference).doesNotContain("broken");
            }
        }
    }

    @Test
    void mutatedBodiesAreRefusedWhereJacksonRefusesThem() {
        Random random = new Random(7);
        int broken = 0;
        int earlier = 0;
        for (int i = 0; i < 20000; i++) {
            byte[] body = mutate(random, body(random));
            List<String> reference = jackson(body, List.of(body.length));
            List<String> read = tokenizer(body, chunks(random, body.length));
            if (!reference.contains("broken") && !reference.contains("stopped")) {
                // Jackson waits for the byte after a token it will refuse whatever follows ('+', "nul" + 'x')
                List<String> refusedEarlier = new ArrayList<>(reference);
                refusedEarlier.add("broken");
                assertThat(read).as("%s", new String(body, StandardCharsets.ISO_8859_1))
                        .isIn(reference, refusedEarlier);
                earlier += read.equals(refusedEarlier) ? 1 : 0;
            } else {
                assertThat(read).as("%s", new String(body, StandardCharsets.ISO_8859_1)).isEqualTo(reference);
            }
            broken += reference.contains("broken") ? 1 : 0;
        }
        assertThat(broken).as("mutations that break the body").isGreaterThan(10000);
        assertThat(earlier).as("bodies refused before Jackson would refuse them").isLessThan(200);
    }

    @Test
    void nestingIsHeldToJacksonsLimitAndNumbersAreNot() {
        String deep = "[".repeat(ChunkedJsonTokenizer.MAX_DEPTH) + "]".repeat(ChunkedJsonTokenizer.MAX_DEPTH);
        String tooDeep = "[" + deep + "]";
        String longNumber = "{\"a\":-" + "9".repeat(5000) + ",\"b\":0." + "1".repeat(5000) + "}";
        for (String text : List.of(deep, tooDeep, longNumber)) {
            byte[] body = text.getBytes(StandardCharsets.UTF_8);
            List<String> reference = jackson(body, List.of(body.length));
            assertThat(tokenizer(body, List.of(body.length))).isEqualTo(reference);
        }
        assertThat(tokenizer(tooDeep.getBytes(StandardCharsets.UTF_8), List.of(tooDeep.length()))).endsWith("broken");
        assertThat(tokenizer(longNumber.getBytes(StandardCharsets.UTF_8), List.of(longNumber.length())))
                .containsExactly("{", "name:", "int:" + Long.MIN_VALUE, "name:", "scalar", "}", "stopped");
    }

    /** Jackson counts a name's bytes in UTF-8 after escapes are decoded, and refuses more than 50,000. */
    @Test
    void namesAreHeldToJacksonsLength() {
        int max = ChunkedJsonTokenizer.MAX_NAME_BYTES;
        for (String name : List.of("a".repeat(max), "a".repeat(max + 1), "\u00e9".repeat(max / 2),
                "\u00e9".repeat(max / 2) + "a", "\\u0061".repeat(max / 5 + 1), "\\u00e9".repeat(max / 2 + 1))) {
            String body = "{\"" + name + "\":1,\"usage\":{\"prompt_tokens\":10}}";
            List<String> read = tokens(body);
            assertThat(read.get(read.size() - 1)).isEqualTo(
                    name.getBytes(StandardCharsets.UTF_8).length > max && !name.startsWith("\\u0061") ? "broken" : "stopped");
        }
    }

    @Test
    void aLiteralOrNumberIsToldOnceTheByteAfterItEndsIt() {
        assertThat(tokens("[true")).containsExactly("[");
        assertThat(tokens("[true,")).containsExactly("[", "scalar");
        assertThat(tokens("[truex]")).containsExactly("[", "broken");
        assertThat(tokens("[0x]")).containsExactly("[", "broken");
        assertThat(tokens("[1x]")).containsExactly("[", "int:1", "broken");
        assertThat(tokens("12{}")).containsExactly("int:12", "{", "}", "stopped");
    }

    private static List<String> tokens(String text) {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        List<String> reference = jackson(body, List.of(body.length));
        assertThat(tokenizer(body, List.of(body.length))).isEqualTo(reference);
        return reference;
    }

    @Test
    void aUtf8ByteOrderMarkIsSkippedAtTheStartOnly() {
        byte[] body = ("\uFEFF{\"usage\":{\"prompt_tokens\":3}}").getBytes(StandardCharsets.UTF_8);
        assertThat(tokenizer(body, List.of(body.length))).containsExactly("{", "name:usage", "{",
                "name:prompt_tokens", "int:3", "}", "}", "stopped");
        assertThat(tokens("\uFEFF\uFEFF\uFEFF{}")).containsExactly("{", "}", "stopped");
        byte[] late = (" \uFEFF{}").getBytes(StandardCharsets.UTF_8);
        assertThat(tokenizer(late, List.of(late.length))).containsExactly("broken");
    }

    private static byte[] body(Random random) {
        StringBuilder json = new StringBuilder();
        value(random, json, 0, true);
        if (random.nextInt(4) == 0) {
            json.append(WHITESPACE[random.nextInt(WHITESPACE.length)]).append("{\"after\":1}");
        }
        return json.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void value(Random random, StringBuilder json, int depth, boolean root) {
        json.append(WHITESPACE[random.nextInt(WHITESPACE.length)]);
        int kind = root ? random.nextInt(2) : depth > 5 ? 2 + random.nextInt(4) : random.nextInt(6);
        switch (kind) {
            case 0 -> {
                json.append('{');
                int fields = random.nextInt(5);
                for (int i = 0; i < fields; i++) {
                    json.append(i == 0 ? "" : ",").append(WHITESPACE[random.nextInt(WHITESPACE.length)])
                            .append('"').append(NAMES[random.nextInt(NAMES.length)]).append('"')
                            .append(WHITESPACE[random.nextInt(WHITESPACE.length)]).append(':');
                    value(random, json, depth + 1, false);
                }
                json.append(WHITESPACE[random.nextInt(WHITESPACE.length)]).append('}');
            }
            case 1 -> {
                json.append('[');
                int elements = random.nextInt(4);
                for (int i = 0; i < elements; i++) {
                    json.append(i == 0 ? "" : ",");
                    value(random, json, depth + 1, false);
                }
                json.append(WHITESPACE[random.nextInt(WHITESPACE.length)]).append(']');
            }
            case 2 -> json.append('"').append(STRINGS[random.nextInt(STRINGS.length)]).append('"');
            case 3 -> json.append(NUMBERS[random.nextInt(NUMBERS.length)]);
            case 4 -> json.append(random.nextBoolean() ? "true" : "false");
            default -> json.append("null");
        }
        json.append(WHITESPACE[random.nextInt(WHITESPACE.length)]);
    }

    private static final byte[] NOISE = "{}[]\",:\\ -+.0159eEtrunlfax\u0000\u001f\t".getBytes(StandardCharsets.ISO_8859_1);
    private static final int[] HIGH_BYTES = {0x80, 0xBF, 0xC0, 0xC3, 0xE2, 0xEF, 0xF0, 0xF8, 0xFE};

    private static byte[] mutate(Random random, byte[] body) {
        byte[] bytes = body;
        int mutations = 1 + random.nextInt(3);
        for (int m = 0; m < mutations && bytes.length > 0; m++) {
            int at = random.nextInt(bytes.length);
            byte noise = random.nextInt(5) == 0 ? (byte) HIGH_BYTES[random.nextInt(HIGH_BYTES.length)]
                    : NOISE[random.nextInt(NOISE.length)];
            switch (random.nextInt(3)) {
                case 0 -> bytes = concat(slice(bytes, 0, at), slice(bytes, at + 1, bytes.length));
                case 1 -> bytes = concat(concat(slice(bytes, 0, at), new byte[] {noise}), slice(bytes, at, bytes.length));
                default -> {
                    bytes = bytes.clone();
                    bytes[at] = noise;
                }
            }
        }
        return bytes;
    }

    private static byte[] slice(byte[] bytes, int from, int to) {
        return java.util.Arrays.copyOfRange(bytes, from, to);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    /** Chunk lengths that add up to {@code length}: whole, byte by byte, or random cuts. */
    private static List<Integer> chunks(Random random, int length) {
        List<Integer> chunks = new ArrayList<>();
        int mode = random.nextInt(3);
        int left = length;
        while (left > 0) {
            int chunk = mode == 0 ? left : mode == 1 ? 1 : 1 + random.nextInt(Math.min(left, 40));
            chunks.add(chunk);
            left -= chunk;
        }
        return chunks;
    }

    private static List<String> tokenizer(byte[] body, List<Integer> chunks) {
        Recorder recorder = new Recorder();
        ChunkedJsonTokenizer tokenizer = new ChunkedJsonTokenizer(recorder, KNOWN);
        int offset = 0;
        for (int chunk : chunks) {
            if (tokenizer.feed(body, offset, chunk)) {
                recorder.events.add("stopped");
                break;
            }
            if (tokenizer.isBroken()) {
                recorder.events.add("broken");
                break;
            }
            offset += chunk;
        }
        return recorder.events;
    }

    /** Jackson's tokens told as the tokenizer tells them (names normalized, integers held to long). */
    private static List<String> jackson(byte[] body, List<Integer> chunks) {
        List<String> events = new ArrayList<>();
        int depth = 0;
        try (JsonParser parser = JACKSON.createNonBlockingByteArrayParser()) {
            int offset = 0;
            for (int chunk : chunks) {
                ((ByteArrayFeeder) parser.getNonBlockingInputFeeder()).feedInput(body, offset, offset + chunk);
                offset += chunk;
                JsonToken token;
                while ((token = parser.nextToken()) != null && token != JsonToken.NOT_AVAILABLE) {
                    switch (token) {
                        case START_OBJECT, START_ARRAY -> {
                            events.add(token == JsonToken.START_OBJECT ? "{" : "[");
                            depth++;
                        }
                        case END_OBJECT, END_ARRAY -> {
                            events.add(token == JsonToken.END_OBJECT ? "}" : "]");
                            if (--depth == 0) {
                                events.add("stopped");
                                return events;
                            }
                        }
                        case FIELD_NAME -> events.add("name:" + normalized(parser.currentName(), depth));
                        case VALUE_NUMBER_INT -> events.add("int:" + (parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                                ? (parser.getBigIntegerValue().signum() > 0 ? Long.MAX_VALUE : Long.MIN_VALUE)
                                : parser.getLongValue()));
                        case VALUE_NULL -> events.add("null");
                        default -> events.add("scalar");
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            events.add("broken");
        }
        return events;
    }

    private static String normalized(String name, int depth) {
        return depth <= NAME_DEPTH && List.of(KNOWN).contains(name) ? name : "";
    }

    private static final class Recorder implements ChunkedJsonTokenizer.Tokens {
        final List<String> events = new ArrayList<>();
        final java.util.Deque<Boolean> open = new java.util.ArrayDeque<>();

        /** The names of the first {@value #NAME_DEPTH} levels matter. */
        @Override
        public boolean open(boolean object) {
            events.add(object ? "{" : "[");
            open.push(object);
            return open.size() <= NAME_DEPTH;
        }

        @Override
        public boolean close() {
            events.add(open.pop() ? "}" : "]");
            return open.isEmpty();
        }

        @Override
        public void name(String name) {
            events.add("name:" + name);
        }

        @Override
        public void integer(long value) {
            events.add("int:" + value);
        }

        @Override
        public void nul() {
            events.add("null");
        }

        @Override
        public void scalar() {
            events.add("scalar");
        }
    }
}
