package dev.llmratelimit.demo;

import dev.llmratelimit.testsupport.Http;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Limits per day beside the configured minute, through the demo: a refusal names the day's window
 * in its message and waits for the day in {@code retry-after}, for a model and for a caller.
 */
class DailyLimitsDemoTest {

    private static final String GPT_4O = "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
    private static final String MINI = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";

    @Test
    void aModelsAndACallersDailyLimitRefuseForTheDay() throws Exception {
        try (DemoFixture demo = new DemoFixture("llm.ratelimit.models.gpt-4o.rpd=2",
                "llm.ratelimit.principals.carol.rpd-limit=1",
                "llm.ratelimit.saturation-threshold=1.0")) {     // the model's figures, not prod's share
            for (int left = 1; left >= 0; left--) {
                HttpResponse<String> served = demo.http().chat("sk-alice", GPT_4O);
                assertThat(served.statusCode()).isEqualTo(200);
                assertThat(Http.header(served, "x-ratelimit-limit-requests")).isEqualTo("2");   // tighter than rpm 100
                assertThat(Http.header(served, "x-ratelimit-remaining-requests")).isEqualTo(Integer.toString(left));
                assertThat(Http.header(served, "x-ratelimit-reset-requests")).matches("24h0m0s|23h59m.*s");
                assertThat(Http.header(served, "x-ratelimit-limit-tokens")).isEqualTo("100000");
                assertThat(Http.header(served, "x-ratelimit-reset-tokens")).matches("1m0s|[0-9.]+s");
            }
            HttpResponse<String> refused = demo.http().chat("sk-alice", GPT_4O);
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.body()).contains("\"message\":\"Model capacity reached for gpt-4o. Priority: prod,"
                    + " Rate limit type: requests per 1d, Model TPM: 100000, Model RPM: 100, Remaining: 0\"");
            assertThat(Long.parseLong(Http.header(refused, "retry-after"))).isBetween(86_000L, 86_400L);

            assertThat(demo.http().chat("sk-carol", MINI).statusCode()).isEqualTo(200);
            HttpResponse<String> carol = demo.http().chat("sk-carol", MINI);
            assertThat(carol.statusCode()).isEqualTo(429);
            assertThat(carol.body()).contains("Limit type: requests per 1d, Limit: 1, Current: 1\"");
            assertThat(Long.parseLong(Http.header(carol, "retry-after"))).isBetween(86_000L, 86_400L);
        }
    }
}
