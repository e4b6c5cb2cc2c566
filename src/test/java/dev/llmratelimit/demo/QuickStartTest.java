package dev.llmratelimit.demo;

import dev.llmratelimit.testsupport.Http;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/** The LiteLLM-style quick start on the README's demo: 60 TPM, answers of 30 tokens. */
class QuickStartTest {

    private static final String CHAT = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";

    @Test
    void twoCallsPassAndTheThirdIsRefusedModelWide() throws Exception {
        try (DemoFixture demo = new DemoFixture()) {
            HttpResponse<String> first = demo.http().chat("sk-alice", CHAT);
            HttpResponse<String> second = demo.http().chat("sk-alice", CHAT);
            HttpResponse<String> third = demo.http().chat("sk-alice", CHAT);

            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.body()).contains("\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":20,\"total_tokens\":30}");
            assertThat(Http.header(first, "x-ratelimit-priority")).isEqualTo("prod");
            assertThat(Http.header(first, "x-ratelimit-limit-tokens")).isEqualTo("60");
            assertThat(Http.header(first, "x-ratelimit-remaining-tokens")).isEqualTo("60");
            assertThat(Http.header(first, "x-ratelimit-limit-requests")).isEqualTo("10");
            assertThat(Http.header(first, "x-ratelimit-remaining-requests")).isEqualTo("9");
            assertThat(second.statusCode()).isEqualTo(200);
            assertThat(Http.header(second, "x-ratelimit-limit-tokens")).isEqualTo("54");   // strict: prod pool 0.9
            assertThat(Http.header(second, "x-ratelimit-remaining-tokens")).isEqualTo("24");

            assertThat(third.statusCode()).isEqualTo(429);
            assertThat(Http.header(third, "content-type")).startsWith("application/json");
            assertThat(third.body()).isEqualTo("{\"error\":{\"message\":\"Model capacity reached for gpt-4o-mini. "
                    + "Priority: prod, Rate limit type: tokens, Model TPM: 60, Model RPM: 10, Remaining: 0\","
                    + "\"type\":\"throttling_error\",\"param\":null,\"code\":\"429\"}}");
            assertThat(Long.parseLong(Http.header(third, "retry-after"))).isBetween(1L, 60L);
            assertThat(Http.header(third, "x-ratelimit-priority")).isEqualTo("prod");
            assertThat(Http.header(third, "x-ratelimit-saturation")).isNull();
        }
    }

    /**
     * LiteLLM's quick start as a {@code --config} file: 60 TPM and nothing else. It replaces the bundled
     * demo.properties, so no reservation (and no key) of that file applies: two calls of 30 tokens are
     * served, the third is refused model-wide.
     */
    @Test
    void liteLlmsQuickStartAsAConfigFileServesTwoThenRefusesModelWide() throws Exception {
        try (DemoFixture demo = DemoFixture.withConfig(
                "llm.ratelimit.models.gpt-4o-mini.tpm=60",
                "llm.ratelimit.window=60s")) {
            HttpResponse<String> first = demo.http().chat("sk-alice", CHAT);
            HttpResponse<String> second = demo.http().chat("sk-anything", CHAT);
            HttpResponse<String> third = demo.http().chat(null, CHAT);

            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(Http.header(first, "x-ratelimit-priority")).isEqualTo("default");
            assertThat(Http.header(first, "x-ratelimit-limit-tokens")).isEqualTo("60");
            assertThat(Http.header(first, "x-ratelimit-remaining-tokens")).isEqualTo("60");
            assertThat(Http.header(first, "x-ratelimit-limit-requests")).isNull();
            assertThat(second.statusCode()).isEqualTo(200);
            assertThat(Http.header(second, "x-ratelimit-limit-tokens")).isEqualTo("60");
            assertThat(Http.header(second, "x-ratelimit-remaining-tokens")).isEqualTo("30");

            assertThat(third.statusCode()).isEqualTo(429);
            assertThat(third.body()).isEqualTo("{\"error\":{\"message\":\"Model capacity reached for gpt-4o-mini. "
                    + "Priority: default, Rate limit type: tokens, Model TPM: 60, Model RPM: not configured, Remaining: 0\","
                    + "\"type\":\"throttling_error\",\"param\":null,\"code\":\"429\"}}");
            assertThat(Long.parseLong(Http.header(third, "retry-after"))).isBetween(1L, 60L);
        }
    }

    /** bob is dev: 10 % of 10 RPM is one request once the model is half used (30 of 60 tokens). */
    @Test
    void aPoolRefusalNamesThePriorityAndTheSaturation() throws Exception {
        try (DemoFixture demo = new DemoFixture()) {
            assertThat(demo.http().chat("sk-bob", CHAT).statusCode()).isEqualTo(200);
            HttpResponse<String> refused = demo.http().chat("sk-bob", CHAT);

            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.body()).isEqualTo("{\"error\":{\"message\":\"Priority-based rate limit exceeded. "
                    + "Model: gpt-4o-mini, Priority: dev, Rate limit type: requests, Model TPM: 60, Model RPM: 10, "
                    + "Remaining: 0, Model saturation: 50.0%\",\"type\":\"throttling_error\",\"param\":null,\"code\":\"429\"}}");
            assertThat(Http.header(refused, "x-ratelimit-saturation")).isEqualTo("50.00%");
            assertThat(Http.header(refused, "x-ratelimit-priority")).isEqualTo("dev");
            assertThat(demo.http().chat("sk-alice", CHAT).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void shadowModeAnswersEverythingAndSaysWhatWouldHaveHappened() throws Exception {
        try (DemoFixture demo = new DemoFixture("llm.ratelimit.mode=shadow")) {
            HttpResponse<String> first = demo.http().chat("sk-alice", CHAT);
            HttpResponse<String> second = demo.http().chat("sk-alice", CHAT);
            HttpResponse<String> third = demo.http().chat("sk-alice", CHAT);
            HttpResponse<String> fourth = demo.http().chat("sk-alice", CHAT);

            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(second.statusCode()).isEqualTo(200);
            assertThat(third.statusCode()).isEqualTo(200);
            assertThat(fourth.statusCode()).isEqualTo(200);
            assertThat(Http.header(first, "x-ratelimit-shadow-decision")).isEqualTo("admitted");
            assertThat(Http.header(second, "x-ratelimit-shadow-decision")).isEqualTo("admitted");
            assertThat(Http.header(third, "x-ratelimit-shadow-decision")).startsWith("refused; limit=model-tokens; retry-after=");
            assertThat(Http.header(fourth, "x-ratelimit-shadow-decision")).startsWith("refused; limit=model-tokens; retry-after=");
            assertThat(Http.header(third, "x-ratelimit-remaining-tokens")).isEqualTo("0");
        }
    }
}
