package dev.llmratelimit.demo;

import dev.llmratelimit.testsupport.Http;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Input and output tokens limited apart ({@code itpm}, {@code otpm}) through the demo: the mock
 * answers 10 prompt tokens and {@code max_tokens} (here 20) output tokens, so output tokens run out
 * while almost all input tokens are left. On {@code /v1/messages} the figures also come under
 * Anthropic's names; a limit per day shows the day's reset beside the minute's.
 */
class InputOutputTokensDemoTest {

    private static final String MESSAGE = "{\"model\":\"claude\",\"max_tokens\":20,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
    private static String refusal(String priority) {
        return "Model capacity reached for claude. Priority: " + priority + ", Rate limit type: output_tokens,"
                + " Model TPM: not configured, Model RPM: not configured, Model ITPM: 1000, Model OTPM: 50, Remaining: 0";
    }

    @Test
    void outputTokensRefuseWhileInputTokensRemainWithAnthropicsHeaders() throws Exception {
        try (DemoFixture demo = new DemoFixture("llm.ratelimit.models.claude.itpm=1000",
                "llm.ratelimit.models.claude.otpm=50", "llm.ratelimit.models.claude.rpd=100",
                "llm.ratelimit.saturation-threshold=1.0")) {     // the model's figures throughout, not prod's share
            long[][] remaining = {{1000, 50, 99}, {990, 30, 98}, {980, 10, 97}};
            for (long[] left : remaining) {
                Instant before = Instant.now();
                HttpResponse<String> served = demo.http().post("/v1/messages", "sk-alice", MESSAGE);
                assertThat(served.statusCode()).isEqualTo(200);
                assertThat(served.body()).contains("\"usage\":{\"input_tokens\":10,").contains("\"output_tokens\":20}");
                assertThat(Http.header(served, "x-ratelimit-limit-input-tokens")).isEqualTo("1000");
                assertThat(Http.header(served, "x-ratelimit-remaining-input-tokens")).isEqualTo(Long.toString(left[0]));
                assertThat(Http.header(served, "x-ratelimit-limit-output-tokens")).isEqualTo("50");
                assertThat(Http.header(served, "x-ratelimit-remaining-output-tokens")).isEqualTo(Long.toString(left[1]));
                assertThat(Http.header(served, "anthropic-ratelimit-input-tokens-limit")).isEqualTo("1000");
                assertThat(Http.header(served, "anthropic-ratelimit-input-tokens-remaining")).isEqualTo(Long.toString(left[0]));
                assertThat(Http.header(served, "anthropic-ratelimit-output-tokens-limit")).isEqualTo("50");
                assertThat(Http.header(served, "anthropic-ratelimit-output-tokens-remaining")).isEqualTo(Long.toString(left[1]));
                assertThat(Http.header(served, "x-ratelimit-limit-tokens")).isNull();
                // requests are limited per day only: their figures and reset are the day's
                assertThat(Http.header(served, "x-ratelimit-limit-requests")).isEqualTo("100");
                assertThat(Http.header(served, "x-ratelimit-remaining-requests")).isEqualTo(Long.toString(left[2]));
                assertThat(Http.header(served, "x-ratelimit-reset-requests")).matches("24h0m0s|23h59m.*s");
                assertThat(Http.header(served, "x-ratelimit-reset-output-tokens")).matches("1m0s|[0-9.]+s");
                Duration requestsReset = Duration.between(before,
                        Instant.parse(Http.header(served, "anthropic-ratelimit-requests-reset")));
                Duration outputReset = Duration.between(before,
                        Instant.parse(Http.header(served, "anthropic-ratelimit-output-tokens-reset")));
                // whole seconds: a second may tick between 'before' and the header
                assertThat(requestsReset).isBetween(Duration.ofHours(23), Duration.ofHours(24).plusSeconds(2));
                assertThat(outputReset).isBetween(Duration.ofSeconds(-1), Duration.ofSeconds(62));
            }

            HttpResponse<String> refused = demo.http().post("/v1/messages", "sk-alice", MESSAGE);  // 60 of 50 output, 30 of 1000 input
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.body()).isEqualTo("{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\""
                    + refusal("prod") + "\"}}");
            assertThat(Http.header(refused, "x-ratelimit-limit-output-tokens")).isEqualTo("50");
            assertThat(Http.header(refused, "x-ratelimit-remaining-output-tokens")).isEqualTo("0");
            assertThat(Http.header(refused, "anthropic-ratelimit-output-tokens-limit")).isEqualTo("50");
            assertThat(Http.header(refused, "anthropic-ratelimit-output-tokens-remaining")).isEqualTo("0");
            assertThat(Http.header(refused, "x-ratelimit-limit-input-tokens")).isNull();
            assertThat(Long.parseLong(Http.header(refused, "retry-after"))).isBetween(1L, 60L);
        }
    }

    /** The same limits from a LiteLLM config.yaml's {@code itpm} and {@code otpm}, over the chat endpoint. */
    @Test
    void liteLlmYamlItpmAndOtpmLimitTheModel(@TempDir Path dir) throws Exception {
        Path config = Files.writeString(dir.resolve("config.yaml"), """
                model_list:
                  - model_name: claude
                    litellm_params: {model: anthropic/claude-sonnet-4, itpm: 600, otpm: 30}
                  - model_name: claude
                    litellm_params: {model: bedrock/claude-sonnet-4, itpm: 400, otpm: 20}
                """);
        try (DemoFixture demo = DemoFixture.withConfig("llm.ratelimit.config-file=" + config,
                "demo.keys.sk-alice=alice")) {
            String chat = "{\"model\":\"claude\",\"max_tokens\":20,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
            for (int call = 0; call < 3; call++) {
                HttpResponse<String> served = demo.http().chat("sk-alice", chat);
                assertThat(served.statusCode()).as("call %d", call).isEqualTo(200);
                assertThat(Http.header(served, "x-ratelimit-limit-input-tokens")).isEqualTo("1000");   // 600 + 400
                assertThat(Http.header(served, "x-ratelimit-limit-output-tokens")).isEqualTo("50");    // 30 + 20
            }
            HttpResponse<String> refused = demo.http().chat("sk-alice", chat);
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.body()).contains("\"message\":\"" + refusal("default") + "\"");   // no reservations: one pool
            assertThat(Http.header(refused, "x-ratelimit-remaining-output-tokens")).isEqualTo("0");
        }
    }
}
