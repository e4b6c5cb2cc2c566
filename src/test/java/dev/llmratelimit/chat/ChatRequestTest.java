package dev.llmratelimit.chat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;

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
                .isEqualTo(new ChatRequest("gpt-4o", false, false, ChatRequest.NO_MAX_TOKENS, ChatRequest.NO_MAX_TOKENS, 1));
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
        assertThat(parse(body)).isEqualTo(new ChatRequest("gpt-4.1-mini", true, true, 300, ChatRequest.NO_MAX_TOKENS, 1));
    }

    private static ChatRequest parse(String json, dev.llmratelimit.usage.EndpointShape shape)
            throws InvalidChatRequestException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        return ChatRequest.parse(bytes, bytes.length, List.of(), shape);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"model\":\"m\",\"max_tokens\":100,\"prompt\":\"one\"}                       | 1  | 100",
        "{\"model\":\"m\",\"max_tokens\":100,\"prompt\":[\"one\",\"two\",\"three\"]}      | 3  | 300",
        "{\"model\":\"m\",\"max_tokens\":100,\"prompt\":[\"one\",\"two\"],\"n\":2}        | 4  | 400",
        "{\"model\":\"m\",\"max_tokens\":100,\"best_of\":3,\"prompt\":[[1,2],[3],[4,5]]} | 9  | 900",
        "{\"model\":\"m\",\"max_tokens\":100,\"prompt\":[1,2,3,4]}                    | 1  | 100",
        "{\"model\":\"m\",\"max_tokens\":100,\"prompt\":[]}                           | 1  | 100",
    })
    void aLegacyCompletionWithAPromptArrayMakesChoicesForEachPrompt(String body, int choices, long output)
            throws Exception {
        ChatRequest request = parse(body, dev.llmratelimit.usage.EndpointShape.COMPLETIONS);
        assertThat(request.n()).isEqualTo(choices);
        assertThat(request.maxOutputTokens()).isEqualTo(output);
        assertThat(parse(body).n()).isEqualTo(body.contains("\"n\":2") ? 2 : 1);   // chat has no prompt field
    }

    @Test
    void aMessagesRequestWithZeroMaxTokensIsRefusedAsWithoutOne() {
        assertThatThrownBy(() -> parse("{\"model\":\"m\",\"max_tokens\":0,\"messages\":[]}",
                dev.llmratelimit.usage.EndpointShape.MESSAGES))
                .isInstanceOf(InvalidChatRequestException.class)
                .hasMessage("The 'max_tokens' field is required: a whole number of tokens.");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"model\":\"m\",\"max_tokens\":100,\"max_completion_tokens\":50}  | 100 | 100",
        "{\"model\":\"m\",\"max_completion_tokens\":50,\"max_tokens\":100}  | 100 | 100",
        "{\"model\":\"m\",\"max_completion_tokens\":500,\"max_tokens\":100} | 500 | 500",
        "{\"model\":\"m\",\"max_tokens\":100}                               | 100 | 100",
        "{\"model\":\"m\",\"max_tokens\":100,\"n\":3}                       | 100 | 300",
        "{\"model\":\"m\",\"max_completion_tokens\":0}                      | -1  | -1",
        "{\"model\":\"m\",\"max_completion_tokens\":0,\"max_tokens\":80}   | 80  | 80",
        "{\"model\":\"m\",\"max_tokens\":0}                                 | -1  | -1",
        "{\"model\":\"m\",\"max_tokens\":null}                              | -1  | -1",
        "{\"model\":\"m\",\"n\":5}                                          | -1  | -1",
        "{\"model\":\"m\",\"max_completion_tokens\":null,\"max_tokens\":70} | 70  | 70",
        "{\"model\":\"m\",\"max_tokens\":2147483647,\"n\":128}              | 2147483647 | 274877906816",
    })
    void maxTokens(String body, long perChoice, long output) throws Exception {
        assertThat(parse(body).maxTokensPerChoice()).isEqualTo(perChoice);
        assertThat(parse(body).maxOutputTokens()).isEqualTo(output);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"model\":\"m\",\"stream\":true}         | true",
        "{\"model\":\"m\",\"stream\":false}        | false",
        "{\"model\":\"m\",\"stream\":null}         | false",
        "{\"model\":\"m\",\"x\":{\"stream\":1}}    | false",
    })
    void stream(String body, boolean expected) throws Exception {
        assertThat(parse(body).stream()).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"model\":\"m\",\"stream_options\":{\"include_usage\":true}}                | true",
        "{\"model\":\"m\",\"stream_options\":{\"x\":{},\"include_usage\":true}}       | true",
        "{\"model\":\"m\",\"stream_options\":{\"include_usage\":false}}               | false",
        "{\"model\":\"m\",\"stream_options\":{\"include_usage\":null}}                | false",
        "{\"model\":\"m\",\"stream_options\":{}}                                      | false",
        "{\"model\":\"m\",\"stream_options\":null}                                    | false",
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
                .isEqualTo(new ChatRequest("gpt-4o-ü🌍", true, false, ChatRequest.NO_MAX_TOKENS, ChatRequest.NO_MAX_TOKENS, 1));
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

    /** What the OpenAI API refuses, and lenient applications (Jackson databind) would coerce into another request. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "`{\"model\":\"m\",\"stream\":\"true\"}`                       | stream                       | The 'stream' field must be a boolean.",
        "`{\"model\":\"m\",\"stream\":1}`                              | stream                       | The 'stream' field must be a boolean.",
        "`{\"model\":\"m\",\"stream\":{\"a\":true}}`                   | stream                       | The 'stream' field must be a boolean.",
        "`{\"model\":\"m\",\"stream_options\":\"x\"}`                  | stream_options               | The 'stream_options' field must be an object or null.",
        "`{\"model\":\"m\",\"stream_options\":[{\"include_usage\":true}]}` | stream_options           | The 'stream_options' field must be an object or null.",
        "`{\"model\":\"m\",\"stream_options\":{\"include_usage\":\"true\"}}` | stream_options.include_usage | The 'stream_options.include_usage' field must be a boolean.",
        "`{\"model\":\"m\",\"max_tokens\":-5}`                         | max_tokens                   | The 'max_tokens' field must be a whole number from 0 to 2147483647.",
        "`{\"model\":\"m\",\"max_tokens\":12.5}`                       | max_tokens                   | The 'max_tokens' field must be a whole number from 0 to 2147483647.",
        "`{\"model\":\"m\",\"max_tokens\":1e3}`                        | max_tokens                   | The 'max_tokens' field must be a whole number from 0 to 2147483647.",
        "`{\"model\":\"m\",\"max_tokens\":\"100\"}`                     | max_tokens                   | The 'max_tokens' field must be a whole number from 0 to 2147483647.",
        "`{\"model\":\"m\",\"max_tokens\":2147483648}`                 | max_tokens                   | The 'max_tokens' field must be a whole number from 0 to 2147483647.",
        "`{\"model\":\"m\",\"max_tokens\":99999999999999999999999}`    | max_tokens                   | The 'max_tokens' field must be a whole number from 0 to 2147483647.",
        "`{\"model\":\"m\",\"max_completion_tokens\":-1,\"max_tokens\":70}` | max_completion_tokens  | The 'max_completion_tokens' field must be a whole number from 0 to 2147483647.",
        "`{\"model\":\"m\",\"n\":0}`                                   | n                            | The 'n' field must be a whole number from 1 to 128.",
        "`{\"model\":\"m\",\"n\":129}`                                 | n                            | The 'n' field must be a whole number from 1 to 128.",
        "`{\"model\":\"m\",\"n\":2.0}`                                 | n                            | The 'n' field must be a whole number from 1 to 128.",
        "`{\"model\":\"m\",\"n\":true}`                                | n                            | The 'n' field must be a whole number from 1 to 128.",
    })
    void refusesDecisionFieldsOfTheWrongType(String body, String param, String message) {
        InvalidChatRequestException e = refusal(body);
        assertThat(e.getMessage()).isEqualTo(message);
        assertThat(e.param()).isEqualTo(param);
    }

    /** Malformed bytes read differently in different decoders (Jackson: the character an overlong form spells; the JDK: U+FFFD). */
    @ParameterizedTest
    @CsvSource({
        "7B226D6F64656C223A22C1A9227D, UTF-8",          // overlong 'i'
        "7B226D6F64656C223A22EDA080227D, UTF-8",        // a surrogate encoded in UTF-8
        "7B226D6F64656C223A22FF227D, UTF-8",
        "7B0022006D006F00640065006C0022003A00220000D822007D00, UTF-16LE",  // unpaired surrogate
    })
    void refusesMalformedBytes(String hex, String charset) {
        byte[] bytes = java.util.HexFormat.of().parseHex(hex);
        assertThatThrownBy(() -> ChatRequest.parse(bytes, bytes.length))
                .isInstanceOf(InvalidChatRequestException.class)
                .hasMessage("The request body is not valid JSON: its bytes are not valid " + charset + ".");
    }

    @Test
    void aBodyReadsTheSameInEveryCharsetThatDecodesItToTheSameFields() throws Exception {
        byte[] utf8 = "{\"model\":\"gpt-4o\",\"messages\":[{\"content\":\"caf\u00e9 \u4f60\u597d\"}]}".getBytes(StandardCharsets.UTF_8);
        List<Charset> servletDefaults = List.of(StandardCharsets.ISO_8859_1, StandardCharsets.UTF_8);
        assertThat(ChatRequest.parse(utf8, utf8.length, servletDefaults).model()).isEqualTo("gpt-4o");

        byte[] utf16 = encode("{\"model\":\"gpt-4o\"}", "UTF-16LE BOM");
        assertThat(ChatRequest.parse(utf16, utf16.length, List.of(Charset.forName("UTF-16"))).model()).isEqualTo("gpt-4o");
        assertThat(ChatRequest.parse(utf16, utf16.length, List.of(StandardCharsets.UTF_16LE)).model()).isEqualTo("gpt-4o");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"model\":\"gpt-4o\"}               | UTF-16LE | ISO-8859-1 | UTF-16LE",
        "{\"model\":\"gpt-4o\"}               | UTF-16BE | UTF-8      | UTF-16BE",
        "{\"model\":\"gpt-4o\"}               | UTF-16LE | UTF-16BE   | UTF-16LE",
        "{\"model\":\"caf\u00e9\"}             | UTF-8    | ISO-8859-1 | UTF-8",
        "{\"model\":\"m\",\"x\":\"\u0101\\\\\"}  | UTF-8    | Shift_JIS  | UTF-8",
    })
    void refusesABodyThatReadsDifferentlyInACharsetAnApplicationMayUse(String json, String encoding, String reading,
                                                                       String detected) {
        byte[] bytes = json.getBytes(Charset.forName(encoding));
        assertThatThrownBy(() -> ChatRequest.parse(bytes, bytes.length, List.of(Charset.forName(reading))))
                .isInstanceOf(InvalidChatRequestException.class)
                .hasMessage("The request body reads differently decoded as " + Charset.forName(reading).name()
                        + " (its declared charset, or the default of servlet readers when it declares none) than in the "
                        + "encoding of its bytes (" + detected + "); send UTF-8 JSON, or declare the charset it is in.");
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
