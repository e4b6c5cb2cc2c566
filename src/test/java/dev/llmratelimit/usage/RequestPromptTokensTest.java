package dev.llmratelimit.usage;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The prompt estimate counts every part of a body that becomes model input, in each endpoint shape. */
class RequestPromptTokensTest {

    private static final TokenCounter COUNTER = TokenCounter.forModel("gpt-4o");
    /** About 20,000 tokens of prose. */
    private static final String LONG = "The quick brown fox jumps over the lazy dog, again and again. ".repeat(1_540);

    private static long estimate(EndpointShape shape, String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        return RequestPromptTokens.count(COUNTER, shape, bytes, bytes.length);
    }

    private static String quoted(String text) {
        return '"' + new String(JsonStringEncoder.getInstance().quoteAsString(text)) + '"';
    }

    @Test
    void aLongPromptHiddenOutsideMessageContentIsCountedInFull() {
        long text = COUNTER.count(LONG);
        assertThat(text).isBetween(18_000L, 22_000L);
        String q = quoted(LONG);
        String[] chatBodies = {
            "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"tools\":[{\"type\":\"function\","
                    + "\"function\":{\"name\":\"f\",\"description\":" + q + ",\"parameters\":{\"type\":\"object\"}}}]}",
            "{\"model\":\"m\",\"messages\":[{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c\","
                    + "\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":" + q + "}}]}]}",
            "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"file\",\"file\":{\"filename\":\"a.txt\","
                    + "\"file_data\":\"data:text/plain;base64," + base64(LONG) + "\"}}]}]}",
            "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"response_format\":{\"type\":\"json_schema\","
                    + "\"json_schema\":{\"name\":\"r\",\"schema\":{\"type\":\"object\",\"description\":" + q + "}}}}",
        };
        for (String body : chatBodies) {
            assertThat(estimate(EndpointShape.CHAT, body)).as(body.substring(0, 120)).isGreaterThanOrEqualTo(text);
        }
        assertThat(estimate(EndpointShape.RESPONSES, "{\"model\":\"m\",\"input\":\"hi\",\"tools\":[{\"type\":\"function\","
                + "\"name\":\"f\",\"description\":" + q + ",\"parameters\":{}}]}")).isGreaterThanOrEqualTo(text);
        assertThat(estimate(EndpointShape.MESSAGES, "{\"model\":\"m\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\","
                + "\"content\":\"hi\"}],\"tools\":[{\"name\":\"f\",\"description\":\"d\",\"input_schema\":{\"type\":\"object\","
                + "\"properties\":{\"q\":{\"type\":\"string\",\"description\":" + q + "}}}}]}")).isGreaterThanOrEqualTo(text);
    }

    @Test
    void schemasCountTheirKeysAndValues() {
        String body = "{\"model\":\"m\",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
                + "\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}}}]}";
        long expected = 3 + COUNTER.count("type") + COUNTER.count("function") + COUNTER.count("function")
                + COUNTER.count("name") + COUNTER.count("get_weather") + COUNTER.count("parameters")
                + COUNTER.count("type") + COUNTER.count("object") + COUNTER.count("properties") + COUNTER.count("city")
                + COUNTER.count("type") + COUNTER.count("string") + COUNTER.count("required") + COUNTER.count("city");
        assertThat(estimate(EndpointShape.CHAT, body)).isEqualTo(expected);
    }

    @Test
    void settingsAreNotInput() {
        String settings = "{\"model\":\"m\",\"metadata\":{\"note\":" + quoted(LONG.substring(0, 500)) + "},\"user\":\"someone\","
                + "\"stop\":[\"END\"],\"temperature\":0.5,\"stream_options\":{\"include_usage\":true},\"messages\":[]}";
        assertThat(estimate(EndpointShape.CHAT, settings)).isEqualTo(3);
    }

    @Test
    void mediaCountTheirBoundAndTextFilesTheirText() {
        String byUrl = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":"
                + "{\"url\":\"https://example.com/a.png\"}},{\"type\":\"text\",\"text\":" + quoted(LONG.substring(0, 4_000)) + "}]}]}";
        assertThat(estimate(EndpointShape.CHAT, byUrl)).isEqualTo(3 + 3 + COUNTER.count("user")
                + RequestPromptTokens.MEDIA_PART_TOKENS + COUNTER.count(LONG.substring(0, 4_000)));

        byte[] binary = new byte[96_000];
        new Random(7).nextBytes(binary);
        binary[0] = (byte) 0x89;                                   // a PNG's first byte: never UTF-8
        String inline = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":"
                + "{\"url\":\"data:image/png;base64," + base64(binary) + "\"}}]}]}";
        assertThat(estimate(EndpointShape.CHAT, inline)).isEqualTo(3 + 3 + COUNTER.count("user") + 96_000 / 32);

        String audio = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_audio\",\"input_audio\":"
                + "{\"data\":\"" + base64(new byte[] {(byte) 0xFF, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}) + "\",\"format\":\"wav\"}}]}]}"
                + " ".repeat(2_000);
        assertThat(estimate(EndpointShape.CHAT, audio)).isEqualTo(3 + 3 + COUNTER.count("user") + COUNTER.count("wav")
                + RequestPromptTokens.MEDIA_PART_TOKENS);

        String document = "{\"model\":\"m\",\"max_tokens\":9,\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"document\","
                + "\"source\":{\"type\":\"base64\",\"media_type\":\"text/plain\",\"data\":\"" + base64("A plain text file, read as text.")
                + "\"}}]}]}";
        assertThat(estimate(EndpointShape.MESSAGES, document)).isEqualTo(3 + COUNTER.count("user")
                + COUNTER.count("text/plain") + COUNTER.count("A plain text file, read as text."));
    }

    /**
     * A plain-text document source is given to the model as written: text that happens to be base64
     * (here of random bytes, which would decode to "media" worth one token per 32 bytes) counts as text,
     * wherever the source's {@code type} stands among its fields.
     */
    @Test
    void aTextSourceThatLooksLikeBase64CountsAsTheTextItIs() {
        byte[] binary = new byte[24_000];
        new Random(11).nextBytes(binary);
        binary[0] = (byte) 0x89;
        String looksLikeBase64 = base64(binary);
        for (String source : new String[] {
                "{\"type\":\"text\",\"media_type\":\"text/plain\",\"data\":\"" + looksLikeBase64 + "\"}",
                "{\"data\":\"" + looksLikeBase64 + "\",\"media_type\":\"text/plain\",\"type\":\"text\"}"}) {
            String document = "{\"model\":\"m\",\"max_tokens\":9,\"messages\":[{\"role\":\"user\",\"content\":["
                    + "{\"type\":\"document\",\"source\":" + source + "}]}]}";
            long expected = 3 + COUNTER.count("user") + COUNTER.count("text/plain") + COUNTER.count(looksLikeBase64);
            assertThat(expected).isGreaterThan(10 * (24_000 / 32));
            assertThat(estimate(EndpointShape.MESSAGES, document)).isEqualTo(expected);
        }
    }

    @Test
    void noEstimateExceedsTheBoundOfItsBodySize() {
        String images = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":["
                + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"https://e.x/a\"}},".repeat(20) + "{}]}]}";
        byte[] bytes = images.getBytes(StandardCharsets.UTF_8);
        assertThat(estimate(EndpointShape.CHAT, images)).isEqualTo(TokenCounter.upperBound(bytes.length));
    }

    static String base64(String text) {
        return base64(text.getBytes(StandardCharsets.UTF_8));
    }

    static String base64(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }
}
