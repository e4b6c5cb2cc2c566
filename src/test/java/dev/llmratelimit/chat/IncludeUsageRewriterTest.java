package dev.llmratelimit.chat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class IncludeUsageRewriterTest {

    private static Optional<byte[]> rewrite(byte[] body) {
        return IncludeUsageRewriter.withIncludeUsage(body, body.length);
    }

    private static String rewrite(String body) {
        return rewrite(body.getBytes(StandardCharsets.UTF_8))
                .map(bytes -> new String(bytes, StandardCharsets.UTF_8))
                .orElse(null);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        // no stream_options: inserted right after the opening brace
        "`{\"model\":\"m\",\"stream\":true}` | `{\"stream_options\":{\"include_usage\":true},\"model\":\"m\",\"stream\":true}`",
        "`{}`                              | `{\"stream_options\":{\"include_usage\":true}}`",
        "`{ }`                             | `{\"stream_options\":{\"include_usage\":true} }`",
        "`  {\n  \"model\" : \"m\"\n}\n`   | `  {\"stream_options\":{\"include_usage\":true},\n  \"model\" : \"m\"\n}\n`",
        "`\t{\r\n\t\"model\":\"m\"\r\n}`   | `\t{\"stream_options\":{\"include_usage\":true},\r\n\t\"model\":\"m\"\r\n}`",
        "`{\"model\":\"m\",\"x\":{\"stream_options\":null}}` | `{\"stream_options\":{\"include_usage\":true},\"model\":\"m\",\"x\":{\"stream_options\":null}}`",
        // stream_options without include_usage: inserted after its opening brace
        "`{\"model\":\"m\",\"stream_options\":{}}`         | `{\"model\":\"m\",\"stream_options\":{\"include_usage\":true}}`",
        "`{\"model\":\"m\",\"stream_options\":{ \"a\" : [1, {\"include_usage\":false}] } }` | `{\"model\":\"m\",\"stream_options\":{\"include_usage\":true, \"a\" : [1, {\"include_usage\":false}] } }`",
        // include_usage with another value: the value alone is replaced
        "`{\"stream_options\": {\"include_usage\" : false }, \"model\":\"m\"}` | `{\"stream_options\": {\"include_usage\" : true }, \"model\":\"m\"}`",
        "`{\"model\":\"m\",\"stream_options\":{\"a\":1,\"include_usage\":null,\"b\":2}}` | `{\"model\":\"m\",\"stream_options\":{\"a\":1,\"include_usage\":true,\"b\":2}}`",
        "`{\"model\":\"m\",\"stream_options\":{\"include_usage\":0}}`          | `{\"model\":\"m\",\"stream_options\":{\"include_usage\":true}}`",
        "`{\"model\":\"m\",\"stream_options\":{\"include_usage\":-12.5e3}}`    | `{\"model\":\"m\",\"stream_options\":{\"include_usage\":true}}`",
        "`{\"model\":\"m\",\"stream_options\":{\"include_usage\":\"no \\\"way\\\"\"}}` | `{\"model\":\"m\",\"stream_options\":{\"include_usage\":true}}`",
        "`{\"model\":\"m\",\"stream_options\":{\"include_usage\":{\"x\":[true]}},\"n\":1}` | `{\"model\":\"m\",\"stream_options\":{\"include_usage\":true},\"n\":1}`",
        "`{\"model\":\"m\",\"stream_options\":{\"include_usage\":[]}}`         | `{\"model\":\"m\",\"stream_options\":{\"include_usage\":true}}`",
        // stream_options null: replaced by the object
        "`{\"model\":\"m\",\"stream_options\" :  null ,\"stream\":true}`      | `{\"model\":\"m\",\"stream_options\" :  {\"include_usage\":true} ,\"stream\":true}`",
    })
    void splicesOnlyWhatIsNeeded(String body, String expected) throws Exception {
        String rewritten = rewrite(body);
        assertThat(rewritten).isEqualTo(expected);
        byte[] bytes = rewritten.getBytes(StandardCharsets.UTF_8);
        if (body.contains("\"model\"")) {
            assertThat(ChatRequest.parse(bytes, bytes.length).includeUsage()).isTrue();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"model\":\"m\",\"stream_options\":{\"include_usage\":true}}",
        "{\"model\":\"m\",\"stream_options\":{\"x\":1, \"include_usage\" : true}}",
        // not an object: the application will judge it; the filter does not guess
        "{\"model\":\"m\",\"stream_options\":\"include_usage\"}",
        "{\"model\":\"m\",\"stream_options\":[]}",
        "{\"model\":\"m\",\"stream_options\":true}",
        // bodies ChatRequest.parse refuses
        "",
        "[]",
        "{\"model\":\"m\"",
        "{\"model\":\"m\"} {}",
        "{\"model\":\"m\",\"model\":\"n\"}",
        "{\"model\":\"m\",\"stream_options\":{},\"stream_options\":{}}",
        "{\"model\":\"m\",\"stream_options\":{\"include_usage\":false,\"include_usage\":false}}",
    })
    void leavesAloneWhatNeedsNoChangeOrCannotBeChanged(String body) {
        assertThat(rewrite(body)).isNull();
    }

    @Test
    void keepsNonAsciiBytesIdentical() {
        String head = "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"Grüße 🌍 日本語 \\u00e9 \\ud83d\\ude00\"}],";
        String body = head + "\"stream_options\":{\"x\":\"ä\"},\"stream\":true}";
        assertThat(rewrite(body))
                .isEqualTo(head + "\"stream_options\":{\"include_usage\":true,\"x\":\"ä\"},\"stream\":true}");
    }

    @Test
    void readsOnlyTheGivenLength() {
        byte[] bytes = "{\"model\":\"m\"}TRAILING".getBytes(StandardCharsets.UTF_8);
        byte[] rewritten = IncludeUsageRewriter.withIncludeUsage(bytes, 13).orElseThrow();
        assertThat(new String(rewritten, StandardCharsets.UTF_8))
                .isEqualTo("{\"stream_options\":{\"include_usage\":true},\"model\":\"m\"}");
    }

    @ParameterizedTest
    @ValueSource(strings = {"UTF-8 BOM", "UTF-16BE", "UTF-16LE", "UTF-16BE BOM", "UTF-16LE BOM", "UTF-32BE", "UTF-32LE",
        "UTF-32LE BOM"})
    void editsOtherCharsetsInTheirOwnEncoding(String encoding) {
        String head = "{\"model\":\"m\",\"content\":\"🌍 ü\",\"stream_options\":{";
        String tail = "\"a\":1}}";
        byte[] rewritten = rewrite(ChatRequestTest.encode(head + tail, encoding)).orElseThrow();
        assertThat(rewritten).isEqualTo(ChatRequestTest.encode(head + "\"include_usage\":true," + tail, encoding));
    }
}
