package dev.llmratelimit.config;

import dev.llmratelimit.observe.Metrics;
import dev.llmratelimit.observe.NoMetrics;
import dev.llmratelimit.observe.Telemetry;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.testsupport.Policies;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** The meters made for a configuration are closed whenever that configuration does not run. */
class ReloadMetricsTest {

    /** Counts the meters made and closed. */
    private static final class CountingTelemetry implements Telemetry {
        final AtomicInteger open = new AtomicInteger();

        @Override
        public Metrics metrics(dev.llmratelimit.policy.RateLimitPolicy policy, dev.llmratelimit.observe.StoreHealth health) {
            open.incrementAndGet();
            return new NoMetrics() {
                @Override
                public void close() {
                    open.decrementAndGet();
                }
            };
        }
    }

    /**
     * Budgets added by a reload need the budget database that start-up did not open: the reload is
     * refused every interval, and each refusal must not leave its meters' gauge callbacks behind.
     */
    @Test
    void aReloadRefusedForItsBudgetsLeavesNoMetersBehind() {
        AtomicReference<Map<String, String>> properties = new AtomicReference<>(Policies.properties("models.m.rpm=10",
                "budget.store=jdbc", "budget.jdbc.url=jdbc:postgresql://127.0.0.1:1/never-opened"));
        CountingTelemetry telemetry = new CountingTelemetry();
        try (RateLimitRuntime runtime = RateLimitRuntime.create(ConfigurationLoader.of("test properties", properties::get),
                null, new MutableClock(), telemetry)) {
            assertThat(telemetry.open).hasValue(1);
            properties.set(Policies.properties("models.m.rpm=10", "budget.store=jdbc",
                    "budget.jdbc.url=jdbc:postgresql://127.0.0.1:1/never-opened", "teams.t.budget=5"));
            for (int i = 0; i < 5; i++) {
                assertThat(runtime.reload()).isFalse();
            }
            assertThat(runtime.configurationStatus().lastError()).contains("llm.ratelimit.budget.store");
            assertThat(telemetry.open).hasValue(1);
        }
        assertThat(telemetry.open).hasValue(0);
    }
}
