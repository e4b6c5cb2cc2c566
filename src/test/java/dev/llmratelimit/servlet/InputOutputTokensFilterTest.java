package dev.llmratelimit.servlet;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.Http;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.Map;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Input and output tokens limited apart ({@code itpm}, {@code otpm}), over real HTTP: each response
 * uses 10 prompt and 20 completion tokens, so the output limit refuses while most input is left.
 */
class InputOutputTokensFilterTest {

    private static FilterServer server;
    private static Http http;

    @BeforeAll
    static void start() throws Exception {
        RateLimitRuntime runtime = RateLimitRuntime.create(properties("models.plain.itpm=1000", "models.plain.otpm=50",
                "window=1h", "error-style=litellm"), null);
        server = new FilterServer(runtime, Map.of(), new ScriptedChatServlet(), "/v1/chat/completions");
        http = server.http();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static final String BODY = "{\"model\":\"plain\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";

    @Test
    void outputTokensRefuseWhileInputTokensRemain() {
        long[][] expected = {{1000, 50}, {990, 30}, {980, 10}};
        for (long[] remaining : expected) {
            HttpResponse<String> admitted = http.chat(null, BODY);
            assertThat(admitted.statusCode()).isEqualTo(200);
            assertThat(Http.header(admitted, "x-ratelimit-limit-input-tokens")).isEqualTo("1000");
            assertThat(Http.header(admitted, "x-ratelimit-remaining-input-tokens")).isEqualTo(Long.toString(remaining[0]));
            assertThat(Http.header(admitted, "x-ratelimit-limit-output-tokens")).isEqualTo("50");
            assertThat(Http.header(admitted, "x-ratelimit-remaining-output-tokens")).isEqualTo(Long.toString(remaining[1]));
            assertThat(Http.header(admitted, "x-ratelimit-limit-tokens")).isNull();
            assertThat(Http.header(admitted, "x-ratelimit-limit-requests")).isNull();
        }

        HttpResponse<String> refused = http.chat(null, BODY);            // 60 output tokens used of 50, 30 input of 1000
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.body()).contains("\"message\":\"Model capacity reached for plain. Priority: default,"
                + " Rate limit type: output_tokens, Model TPM: not configured, Model RPM: not configured,"
                + " Model ITPM: 1000, Model OTPM: 50, Remaining: 0\"");
        assertThat(Http.header(refused, "x-ratelimit-limit-output-tokens")).isEqualTo("50");
        assertThat(Http.header(refused, "x-ratelimit-remaining-output-tokens")).isEqualTo("0");
        assertThat(Http.header(refused, "x-ratelimit-reset-output-tokens")).isNotNull();
        assertThat(Http.header(refused, "x-ratelimit-limit-input-tokens")).isNull();
        assertThat(Long.parseLong(Http.header(refused, "retry-after"))).isBetween(1L, 3600L);
    }
}
