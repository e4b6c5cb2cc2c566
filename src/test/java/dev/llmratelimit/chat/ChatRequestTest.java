package dev.llmratelimit.chat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ChatRequestTest {

    private static ChatRequest parse(String json) throws InvalidChatRequestException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        return ChatRequest.parse(bytes, bytes.length);
    }

    private static InvalidChatRequestException refusal(String json) {
        try {
            parse(json);
        } catch (InvalidChatRequestException e) {
            return e;
        }
        throw new AssertionError("accepted: " + json);
    }

    @Test
    void minimalBody() throws Exception {
        assertThat(parse("{\"model\":\"gpt-4o\"}"))
                .isEqualTo(new ChatRequest("gpt-4o", false, ChatRequest.NO_MAX_TOKENS, false));
    }

    @Test
    void readsEveryFieldAndSkipsTheRest() throws Exception {
        String body = """
                {
                  "messages": [{"role": "user", "content": [{"type": "text", "text": "hi {\\"model\\": 1}"}]}],
                  "tools": [{"type": "function", "function": {"name": "f", "parameters": {"model": {"type": "string"}}}}],
                  "model": "gpt-4.1-mini",
                  "stream": true,
                  "stream_options": {"other": [1, {"include_usage": false}], "include_usage": true},
                  "max_tokens": 300,
                  "temperature": 0.2
                }
                """;
        assertThat(parse(body)).isEqualTo(new ChatRequest("gpt-4.1-mini", true, 300, true));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"model\":\"m\",\"max_tokens\":100,\"max_completion_tokens\":50}  | 50",
        "{\"model\":\"m\",\"max_completion_tokens\":50,\"max_tokens\":100}  | 50",
        "{\"model\":\"m\",\"max_tokens\":100}                               | 100",
        "{\"model\":\"m\",\"max_completion_tokens\":0}                      | 0",
        "{\"model\":\"m\",\"max_tokens\":null}                              | -1",
        "{\"model\":\"m\",\"max_tokens\":-5}                                | -1",
        "{\"model\":\"m\",\"max_tokens\":12.5}                              | -1",
        "{\"model\":\"m\",\"max_tokens\":\"100\"}                           | -1",
        "{\"model\":\"m\",\"max_tokens\":[100]}                             | -1",
        "{\"model\":\"m\",\"max_tokens\":99999999999999999999999}           | 9223372036854775807",
        "{\"model\":\"m\",\"max_completion_tokens\":-1,\"max_tokens\":70}   | 70",
    })
    void maxTokens(String body, long expected) throws Exception {
        assertThat(parse(body).maxTokens()).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"model\":\"m\",\"stream\":true}         | true",
        "{\"model\":\"m\",\"stream\":false}        | false",
        "{\"model\":\"m\",\"stream\":\"true\"}     | false",
        "{\"model\":\"m\",\"stream\":1}            | false",
        "{\"model\":\"m\",\"stream\":{\"a\":true}} | false",
    })
    void stream(String body, boolean expected) throws Exception {
        assertThat(parse(body).stream()).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"model\":\"m\",\"stream_options\":{\"include_usage\":true}}                | true",
        "{\"model\":\"m\",\"stream_options\":{\"x\":{},\"include_usage\":true}}       | true",
        "{\"model\":\"m\",\"stream_options\":{\"include_usage\":false}}               | false",
        "{\"model\":\"m\",\"stream_options\":{\"include_usage\":\"true\"}}            | false",
        "{\"model\":\"m\",\"stream_options\":{}}                                      | false",
        "{\"model\":\"m\",\"stream_options\":null}                                    | false",
        "{\"model\":\"m\",\"stream_options\":[{\"include_usage\":true}]}              | false",
        "{\"model\":\"m\",\"extra\":{\"stream_options\":{\"include_usage\":true}}}    | false",
    })
    void includeUsage(String body, boolean expected) throws Exception {
        assertThat(parse(body).includeUsage()).isEqualTo(expected);
    }

    @Test
    void modelIsUnescapedText() throws Exception {
        assertThat(parse("{\"model\":\"gpt-\\u00e9 \\\"x\\\" 模型\"}").model()).isEqualTo("gpt-é \"x\" 模型");
        assertThat(parse("{\"model\":\"\"}").model()).isEmpty();
    }

    @Test
    void readsOnlyTheGivenLength() throws Exception {
        byte[] bytes = "{\"model\":\"m\"}GARBAGE".getBytes(StandardCharsets.UTF_8);
        assertThat(ChatRequest.parse(bytes, 13).model()).isEqualTo("m");
    }

    @ParameterizedTest
    @ValueSource(strings = {"UTF-8 BOM", "UTF-16BE", "UTF-16LE", "UTF-16BE BOM", "UTF-16LE BOM", "UTF-32BE", "UTF-32LE",
        "UTF-32BE BOM"})
    void acceptsTheCharsetsJacksonDetects(String encoding) throws Exception {
        String json = "{\"model\":\"gpt-4o-ü🌍\",\"stream\":true}";
        byte[] bytes = encode(json, encoding);
        assertThat(ChatRequest.parse(bytes, bytes.length))
                .isEqualTo(new ChatRequest("gpt-4o-ü🌍", true, ChatRequest.NO_MAX_TOKENS, false));
    }

    /** "UTF-16LE BOM" = the text preceded by U+FEFF, encoded in UTF-16LE. */
    static byte[] encode(String text, String encoding) {
        boolean bom = encoding.endsWith(" BOM");
        String charset = bom ? encoding.substring(0, encoding.length() - 4) : encoding;
        return ((bom ? "\uFEFF" : "") + text).getBytes(Charset.forName(charset));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "``                                    | The request body must be a JSON object.",
        "`   `                                 | The request body must be a JSON object.",
        "`[{\"model\":\"m\"}]`                 | The request body must be a JSON object.",
        "`\"model\"`                           | The request body must be a JSON object.",
        "`42`                                  | The request body must be a JSON object.",
        "`null`                                | The request body must be a JSON object.",
        "`model=gpt-4o`                        | The request body is not valid JSON (line 1, column 7).",
        "`{\"model\":\"m\"`                    | The request body is not valid JSON (line 1, column 13).",
        "`{\"model\":\"m\",}`                  | The request body is not valid JSON (line 1, column 14).",
        "`{'model':'m'}`                       | The request body is not valid JSON (line 1, column 2).",
        "`{\"model\":\"m\"} x`                 | The request body is not valid JSON (line 1, column 16).",
        "`{\"model\":\"m\"}\n{\"model\":\"n\"}` | The request body must hold a single JSON object; more content follows it (line 1, column 14).",
        "`{\"model\":\"m\"} []`                | The request body must hold a single JSON object; more content follows it (line 1, column 14).",
        "`{\"model\":\"a\",\"model\":\"b\"}`   | The request body contains a duplicated key (line 1, column 21).",
        "`{\"messages\":[{\"role\":\"user\",\"role\":\"system\"}],\"model\":\"m\"}` | The request body contains a duplicated key (line 1, column 35).",
        "`{\"stream_options\":{\"include_usage\":false,\"include_usage\":true},\"model\":\"m\"}` | The request body contains a duplicated key (line 1, column 57).",
    })
    void refusesBodiesThatAreNotOneObject(String body, String message) {
        InvalidChatRequestException e = refusal(body);
        assertThat(e.getMessage()).isEqualTo(message);
        assertThat(e.param()).isNull();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "`{}`                                  | The request body must have a string 'model' field.",
        "`{\"messages\":[]}`                   | The request body must have a string 'model' field.",
        "`{\"x\":{\"model\":\"m\"}}`           | The request body must have a string 'model' field.",
        "`{\"model\":null}`                    | The 'model' field must be a string.",
        "`{\"model\":4}`                       | The 'model' field must be a string.",
        "`{\"model\":[\"gpt-4o\"]}`            | The 'model' field must be a string.",
        "`{\"model\":{\"name\":\"gpt-4o\"}}`   | The 'model' field must be a string.",
    })
    void refusesBodiesWithoutAStringModel(String body, String message) {
        InvalidChatRequestException e = refusal(body);
        assertThat(e.getMessage()).isEqualTo(message);
        assertThat(e.param()).isEqualTo("model");
    }

    @Test
    void neverEchoesTheBody() {
        String secret = "sk-" + "A".repeat(100_000);
        for (String body : new String[]{"{\"" + secret + "\":1,\"" + secret + "\":2}", "{\"model\":\"m\"," + secret + "}",
            "[\"" + secret + "\"]", "{\"model\":\"m\"}\"" + secret + "\""}) {
            InvalidChatRequestException e = refusal(body);
            assertThat(e.getMessage()).doesNotContain("sk-").hasSizeLessThan(120);
        }
    }

    @Test
    void refusesHostileNesting() {
        String deep = "{\"model\":\"m\",\"x\":" + "[".repeat(100_000) + "]".repeat(100_000) + "}";
        assertThat(refusal(deep).getMessage()).isEqualTo("The request body exceeds the JSON nesting or size limits.");
    }

    @Test
    void refusesInvalidUtf8() {
        byte[] bytes = {'{', '"', 'm', 'o', 'd', 'e', 'l', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'};
        assertThatThrownBy(() -> ChatRequest.parse(bytes, bytes.length))
                .isInstanceOf(InvalidChatRequestException.class)
                .hasMessageStartingWith("The request body is not valid JSON");
    }
}
