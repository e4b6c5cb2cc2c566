package dev.llmratelimit.config;

import dev.llmratelimit.observe.StatusHtml;
import dev.llmratelimit.observe.StatusJson;
import dev.llmratelimit.observe.StatusReport;
import dev.llmratelimit.testsupport.CapturedLog;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.testsupport.Policies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A refused reload or start-up names the property and what was wrong, never a key or a password (docs/configuration-sources.md). */
class SecretsInMessagesTest {

    private static final String KEY = "sk-live-7f3a9c0e11d24b5b";
    private final MutableClock clock = new MutableClock();

    @Test
    void aReloadRefusedOverADeploymentsKeyShowsTheKeyNowhere(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("config.yaml"),
                "model_list:\n  - model_name: m\n    litellm_params: {rpm: 10, api_key: " + KEY + "}\n");
        try (RateLimitRuntime runtime = RateLimitRuntime.create(
                ConfigurationLoader.of("test properties", () -> Policies.properties("config-file=" + file)), null, clock);
             CapturedLog log = CapturedLog.of(RateLimitRuntime.class)) {
            String expected = "Invalid configuration model_list[0].litellm_params: expected a mapping, found a string";
            for (String broken : new String[] {
                    "    litellm_params: \"api_key: " + KEY + ", rpm: 10\"\n",
                    "    litellm_params: {rpm: 10, api_key: " + KEY + "\n"}) {
                Files.writeString(file, "model_list:\n  - model_name: m\n" + broken);
                clock.advance(Duration.ofSeconds(30));

                assertThat(runtime.reload()).isFalse();

                String message = runtime.configurationStatus().lastError();
                assertThat(message).doesNotContain(KEY).startsWith("Invalid configuration ");
                StatusReport report = runtime.status().read();
                assertThat(report.configuration().lastReload().message()).isEqualTo(message);
                ByteArrayOutputStream json = new ByteArrayOutputStream();
                StatusJson.write(report, json);
                assertThat(json.toString(StandardCharsets.UTF_8)).contains("\"applied\":false").doesNotContain(KEY);
                assertThat(StatusHtml.render(report, Duration.ofSeconds(5))).doesNotContain(KEY);
            }
            assertThat(log.at(Level.WARNING)).containsExactly(
                    "Ignored an invalid rate-limit configuration (the running policy stays): " + expected,
                    "Ignored an invalid rate-limit configuration (the running policy stays): Invalid configuration"
                            + " llm.ratelimit.config-file=" + file + ": not valid YAML (line 3, column 64)");
            assertThat(runtime.limiter().policy().model("m").rpm()).isEqualTo(10);
        }
    }

    @Test
    void aStartUpRefusedOverARedisAddressOrAPasswordShowsNeither() {
        assertThatThrownBy(() -> RateLimitRuntime.create(Policies.properties("models.m.rpm=10", "store=redis",
                "redis.address=tcp://admin:" + KEY + "@cache:6379"), null))
                .hasMessage("Invalid configuration llm.ratelimit.redis.address (value not shown):"
                        + " expected redis://host:port or rediss://host:port");
        assertThatThrownBy(() -> RateLimitRuntime.create(Policies.properties("models.m.rpm=10", "budget.store=jdbc",
                "budget.jdbc.url=jdbc:nosuchdb://admin:" + KEY + "@db/llm", "budget.jdbc.pool-size=0"), null))
                .hasMessage("Invalid configuration llm.ratelimit.budget.jdbc.pool-size=0: expected a whole number from 1 to 100");
        assertThatThrownBy(() -> RateLimitRuntime.create(Policies.properties("models.m.rpm=10", "budget.store=jdbc",
                "principals.alice.budget=5", "prices.m.input=1", "prices.m.output=1",
                "budget.jdbc.url=jdbc:nosuchdb://admin:" + KEY + "@db/llm"), null))
                .isInstanceOf(IllegalStateException.class).hasNoCause()
                .hasMessage("Budget database unavailable: No suitable driver found for (hidden)");
    }
}
