package dev.llmratelimit.usage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class JsonUsageParserTest {

    private static Optional<Usage> parse(String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        return JsonUsageParser.parse(bytes, bytes.length);
    }

    private static String response(String usage) {
        return """
                {"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-4o-2024-08-06",
                 "choices":[{"index":0,"message":{"role":"assistant","content":"Hello {\\"usage\\":{\\"prompt_tokens\\":999}}","refusal":null},
                   "logprobs":null,"finish_reason":"stop"}],
                 "usage":%s,
                 "system_fingerprint":"fp_1"}
                """.formatted(usage);
    }

    @Test
    void readsAnOpenAiResponse() {
        String usage = """
                {"prompt_tokens":19,"completion_tokens":10,"total_tokens":29,
                 "prompt_tokens_details":{"cached_tokens":7,"audio_tokens":0},
                 "completion_tokens_details":{"reasoning_tokens":0,"accepted_prediction_tokens":0}}""";
        assertThat(parse(response(usage))).contains(new Usage(19, 10, 7));
    }

    @Test
    void absentOrNullSubFieldsCountAsZero() {
        assertThat(parse(response("{\"prompt_tokens\":19,\"total_tokens\":19}"))).contains(new Usage(19, 0, 0));
        assertThat(parse(response("{\"completion_tokens\":5}"))).contains(new Usage(0, 5, 0));
        assertThat(parse(response("{\"prompt_tokens\":3,\"completion_tokens\":4,\"prompt_tokens_details\":null}")))
                .contains(new Usage(3, 4, 0));
        assertThat(parse(response("{\"prompt_tokens\":3,\"completion_tokens\":4,\"prompt_tokens_details\":{}}")))
                .contains(new Usage(3, 4, 0));
        assertThat(parse(response("{\"prompt_tokens\":3,\"completion_tokens\":null}"))).contains(new Usage(3, 0, 0));
    }

    @Test
    void usageMayComeFirstAndChoicesMayBeLarge() {
        String content = "x".repeat(2_000_000);
        String json = "{\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2},\"choices\":[{\"message\":{\"content\":\""
                + content + "\",\"tool_calls\":[{\"usage\":{\"prompt_tokens\":5}}]}}]}";
        assertThat(parse(json)).contains(new Usage(1, 2, 0));
    }

    @Test
    void theLastTopLevelUsageWins() {
        assertThat(parse("{\"usage\":{\"prompt_tokens\":1},\"usage\":{\"prompt_tokens\":2}}")).contains(new Usage(2, 0, 0));
        assertThat(parse("{\"usage\":{\"prompt_tokens\":1},\"usage\":null}")).isEmpty();
    }

    @Test
    void readsOnlyTheGivenLength() {
        byte[] bytes = "{\"usage\":{\"prompt_tokens\":1}}{\"junk\"".getBytes(StandardCharsets.UTF_8);
        assertThat(JsonUsageParser.parse(bytes, 29)).contains(new Usage(1, 0, 0));
    }

    /** Implausible figures count as large ({@link Usage#MAX_TOKENS}), never wrapping a sum and never as zero. */
    @Test
    void implausiblyLargeCountsCountAsTheMaximum() {
        Usage usage = parse(response("{\"prompt_tokens\":9223372036854775807,\"completion_tokens\":3000000000}")).orElseThrow();
        assertThat(usage.promptTokens()).isEqualTo(2_147_483_647L);
        assertThat(usage.completionTokens()).isEqualTo(2_147_483_647L);
        assertThat(usage.isImplausible()).isTrue();
        assertThat(usage.tokens(dev.llmratelimit.policy.RateLimitType.TOTAL)).isEqualTo(4_294_967_294L);

        Usage beyondLong = parse(response("{\"prompt_tokens\":99999999999999999999,\"completion_tokens\":10}")).orElseThrow();
        assertThat(beyondLong.promptTokens()).isEqualTo(2_147_483_647L);
        assertThat(beyondLong.completionTokens()).isEqualTo(10);
        assertThat(parse(response("{\"prompt_tokens\":2147483646,\"completion_tokens\":1}")).orElseThrow().isImplausible())
                .isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "null", "\"19\"", "[]", "19", "{}", "{\"total_tokens\":29}",
        "{\"prompt_tokens\":-1,\"completion_tokens\":10}",
        "{\"prompt_tokens\":19,\"completion_tokens\":-10}",
        "{\"prompt_tokens\":19.5,\"completion_tokens\":10}",
        "{\"prompt_tokens\":19.0,\"completion_tokens\":10}",
        "{\"prompt_tokens\":1e2,\"completion_tokens\":10}",
        "{\"prompt_tokens\":\"19\",\"completion_tokens\":10}",
        "{\"prompt_tokens\":[19],\"completion_tokens\":10}",
        "{\"prompt_tokens\":true,\"completion_tokens\":10}",
        "{\"prompt_tokens\":-99999999999999999999,\"completion_tokens\":10}",
        "{\"prompt_tokens\":19,\"completion_tokens\":10,\"prompt_tokens_details\":{\"cached_tokens\":-1}}",
        "{\"prompt_tokens\":19,\"completion_tokens\":10,\"prompt_tokens_details\":{\"cached_tokens\":\"7\"}}",
        "{\"prompt_tokens\":19,\"completion_tokens\":10,\"prompt_tokens_details\":7}",
    })
    void unusableUsageIsEmpty(String usage) {
        assertThat(parse(response(usage))).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "",
        "   ",
        "[{\"usage\":{\"prompt_tokens\":1}}]",
        "{\"choices\":[]}",
        "{\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2}",
        "{\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2}} trailing",
        "{\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2}}{}",
        "{\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2},\"choices\":[}",
        "data: {\"usage\":{\"prompt_tokens\":1}}",
        "<html>502 Bad Gateway</html>",
    })
    void malformedBodiesAreEmpty(String body) {
        assertThat(parse(body)).isEmpty();
    }

    @Test
    void invalidUtf8IsEmpty() {
        byte[] head = "{\"usage\":{\"prompt_tokens\":1},\"a\":\"".getBytes(StandardCharsets.UTF_8);
        byte[] bytes = Arrays.copyOf(head, head.length + 3);
        bytes[head.length] = (byte) 0xFF;
        bytes[head.length + 1] = '"';
        bytes[head.length + 2] = '}';
        assertThat(JsonUsageParser.parse(bytes, bytes.length)).isEmpty();
    }
}
