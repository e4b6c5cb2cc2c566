package dev.llmratelimit.demo;

import dev.llmratelimit.testsupport.Http;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demo started with {@code --config config.yaml}, or with a properties file that maps the keys
 * and names the YAML in {@code llm.ratelimit.config-file}: a LiteLLM user's file gives the same
 * answers as LiteLLM.
 */
class LiteLlmYamlDemoTest {

    /** The mock answers 10 prompt tokens plus max_tokens completion tokens: 15 per call. */
    private static final String FIFTEEN_TOKENS = "{\"model\":\"team-model\",\"max_tokens\":5,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
    private static final String QUICK_START_CHAT = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";

    /**
     * The seed-004 run: one 100 TPM group (two deployments of 60 and 40), prod 0.6, dev 0.4, default
     * 0.5, threshold 0.4. A caller without a priority gets four 15-token calls; the fifth, at 60 of
     * 100 tokens, is over the default pool's 50 and refused at 60.0 %; prod and dev still get theirs.
     */
    @Test
    void theSeed004ConfigurationReproducesItsRun(@TempDir Path dir) throws Exception {
        Path config = Files.writeString(dir.resolve("config.yaml"), """
                model_list:
                  - model_name: team-model
                    litellm_params: {model: azure/gpt-4o-eu, tpm: 60}
                  - model_name: team-model
                    litellm_params: {model: azure/gpt-4o-us, tpm: 40}
                litellm_settings:
                  callbacks: ["dynamic_rate_limiter_v3"]
                  priority_reservation:
                    prod: 0.6
                    dev: 0.4
                  priority_reservation_settings:
                    default_priority: 0.5
                    saturation_threshold: 0.4
                """);
        try (DemoFixture demo = DemoFixture.withConfig("llm.ratelimit.config-file=" + config,
                "demo.keys.sk-alice=alice", "demo.keys.sk-bob=bob", "demo.keys.sk-carol=carol",
                "llm.ratelimit.principals.alice.priority=prod", "llm.ratelimit.principals.bob.priority=dev")) {
            for (int call = 1; call <= 4; call++) {
                HttpResponse<String> served = demo.http().chat("sk-carol", FIFTEEN_TOKENS);
                assertThat(served.statusCode()).as("call %d", call).isEqualTo(200);
                assertThat(served.body()).contains("\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5,\"total_tokens\":15}");
                assertThat(Http.header(served, "x-ratelimit-priority")).isEqualTo("default");
            }
            HttpResponse<String> fifth = demo.http().chat("sk-carol", FIFTEEN_TOKENS);

            assertThat(fifth.statusCode()).isEqualTo(429);
            assertThat(fifth.body()).isEqualTo("{\"error\":{\"message\":\"Priority-based rate limit exceeded. "
                    + "Model: team-model, Priority: default, Rate limit type: tokens, Model TPM: 100, "
                    + "Model RPM: not configured, Remaining: 0, Model saturation: 60.0%\","
                    + "\"type\":\"throttling_error\",\"param\":null,\"code\":\"429\"}}");
            assertThat(Http.header(fifth, "x-ratelimit-saturation")).isEqualTo("60.00%");
            HttpResponse<String> prod = demo.http().chat("sk-alice", FIFTEEN_TOKENS);
            assertThat(prod.statusCode()).isEqualTo(200);
            // prod's pool is untouched (60 of 60 left): the tightest limit is the model's 40 of 100
            assertThat(Http.header(prod, "x-ratelimit-limit-tokens")).isEqualTo("100");
            assertThat(Http.header(prod, "x-ratelimit-remaining-tokens")).isEqualTo("40");
            assertThat(demo.http().chat("sk-bob", FIFTEEN_TOKENS).statusCode()).isEqualTo(200);
        }
    }

    /** config/litellm-quickstart.yaml, the docs' quick start: 60 TPM, 30-token answers, no keys, no reservations. */
    @Test
    void theQuickStartYamlServesTwoCallsAndRefusesTheThirdModelWide() throws Exception {
        try (DemoFixture demo = new DemoFixture(Path.of("config", "litellm-quickstart.yaml"))) {
            HttpResponse<String> first = demo.http().chat(null, QUICK_START_CHAT);
            HttpResponse<String> second = demo.http().chat(null, QUICK_START_CHAT);
            HttpResponse<String> third = demo.http().chat(null, QUICK_START_CHAT);

            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.body()).contains("\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":20,\"total_tokens\":30}");
            assertThat(Http.header(first, "x-ratelimit-limit-tokens")).isEqualTo("60");
            assertThat(Http.header(first, "x-ratelimit-remaining-tokens")).isEqualTo("60");
            assertThat(Http.header(first, "x-ratelimit-limit-requests")).isNull();
            assertThat(second.statusCode()).isEqualTo(200);
            assertThat(Http.header(second, "x-ratelimit-remaining-tokens")).isEqualTo("30");
            assertThat(third.statusCode()).isEqualTo(429);
            assertThat(third.body()).isEqualTo("{\"error\":{\"message\":\"Model capacity reached for gpt-4o-mini. "
                    + "Priority: default, Rate limit type: tokens, Model TPM: 60, Model RPM: not configured, Remaining: 0\","
                    + "\"type\":\"throttling_error\",\"param\":null,\"code\":\"429\"}}");
            assertThat(Http.header(third, "x-ratelimit-saturation")).isNull();
        }
    }

    /** The YAML replaces the bundled demo.properties: its gpt-4o limits are gone. */
    @Test
    void aModelOnlyTheBundledFileConfiguresIsNotLimitedUnderAYaml() throws Exception {
        try (DemoFixture demo = new DemoFixture(Path.of("config", "litellm-quickstart.yaml"))) {
            HttpResponse<String> response = demo.http().chat(null,
                    "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}");
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(Http.header(response, "x-ratelimit-limit-requests")).isNull();
            assertThat(Http.header(response, "x-ratelimit-priority")).isNull();
        }
    }
}
