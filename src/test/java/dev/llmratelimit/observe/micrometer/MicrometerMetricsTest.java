package dev.llmratelimit.observe.micrometer;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.DecisionObserver;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.observe.Metrics;
import dev.llmratelimit.observe.StoreHealth;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.usage.Usage;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.llmratelimit.testsupport.Admits.admit;
import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

/** The meters in a Micrometer registry after a scripted load: the OpenTelemetry meters' names, tags and figures. */
class MicrometerMetricsTest {

    private final MutableClock clock = new MutableClock();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MemoryAdmissionStore store = new MemoryAdmissionStore(clock);
    private final StoreHealth health = new StoreHealth("memory", Map.of(), clock);

    private RateLimiter limiter(Metrics metrics, RateLimitPolicy policy) {
        RateLimiter limiter = new RateLimiter(policy, store, clock, RateLimiter.DEFAULT_LEASE_MILLIS, List.of(),
                DecisionObserver.both(health, metrics));
        metrics.watch(limiter);
        return limiter;
    }

    @Test
    void everyLimitAndWhichPoolsAreActiveUnderWorkConservingFairness() {
        RateLimitPolicy policy = policy("models.m.rpm=20", "models.m.tpd=10000", "reservation.prod=0.5",
                "reservation.dev=0.25", "default-priority=0.25", "fairness=work-conserving");
        RateLimiter limiter = limiter(MicrometerTelemetry.of(registry).metrics(policy, health), policy);
        for (int i = 0; i < 3; i++) {
            admit(limiter, "m", "prod").complete(new Usage(10, 20, 0));
        }

        assertThat(gauge("llm_ratelimit.pool.active", "model", "m", "pool", "prod")).isEqualTo(1);
        assertThat(gauge("llm_ratelimit.pool.active", "model", "m", "pool", "dev")).isEqualTo(0);
        assertThat(gauge("llm_ratelimit.pool.requests.limit", "model", "m", "pool", "prod")).isEqualTo(20);
        assertThat(gauge("llm_ratelimit.pool.requests.limit", "model", "m", "pool", "dev")).isEqualTo(6);
        assertThat(modelGauge("llm_ratelimit.limit.used", "model", "m", "dimension", "tokens", "window", "1d")).isEqualTo(90);
        assertThat(modelGauge("llm_ratelimit.limit.capacity", "model", "m", "dimension", "tokens", "window", "1d"))
                .isEqualTo(10000);
        assertThat(gauge("llm_ratelimit.limit.used", "model", "m", "dimension", "tokens", "window", "1d", "pool", "prod"))
                .isEqualTo(90);
    }

    @Test
    void decisionsTokensTimersAndGaugesAfterAScriptedLoad() {
        // m: 10 requests, 1000 tokens; prod keeps 50 %, the default pool 25 % (2 requests, 250 tokens in strict mode).
        RateLimitPolicy policy = policy("models.m.rpm=10", "models.m.tpm=1000", "reservation.prod=0.5");
        Metrics metrics = MicrometerTelemetry.of(registry).metrics(policy, health);
        RateLimiter limiter = limiter(metrics, policy);
        List<Admission> admitted = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            admitted.add(admit(limiter, "m", null));
        }
        admitted.add(admit(limiter, "m", "prod"));
        admitted.add(admit(limiter, "m", "prod"));
        Admission refused = admit(limiter, "m", null);           // saturation 0.5: strict, the default pool holds 3 of 2
        admitted.add(admit(limiter, "m", "prod"));
        admit(limiter, "gpt-unknown-" + System.nanoTime(), "prod");
        assertThat(refused.outcome()).isEqualTo(Admission.Outcome.REFUSED);
        for (Admission admission : admitted) {
            admission.complete(new Usage(100, 20, 0));
        }
        clock.advance(Duration.ofSeconds(15));

        assertThat(decisions("m", "default", "admitted", "none", "generous")).isEqualTo(3);
        assertThat(decisions("m", "prod", "admitted", "none", "generous")).isEqualTo(2);
        assertThat(decisions("m", "default", "refused", "pool_requests", "strict")).isEqualTo(1);
        assertThat(decisions("m", "prod", "admitted", "none", "strict")).isEqualTo(1);
        assertThat(decisions("unconfigured", "none", "unlimited", "none", "none")).isEqualTo(1);
        assertThat(registry.find("llm_ratelimit.decisions").counters()).hasSize(5);
        assertThat(registry.get("llm_ratelimit.tokens").tags("model", "m", "pool", "prod", "type", "input").counter().count())
                .isEqualTo(300);
        assertThat(registry.get("llm_ratelimit.tokens").tags("model", "m", "pool", "default", "type", "output").counter().count())
                .isEqualTo(60);
        assertThat(registry.get("llm_ratelimit.decision.duration").tags("model", "m", "outcome", "admitted").timer().count())
                .isEqualTo(6);
        assertThat(registry.get("llm_ratelimit.decision.duration").tags("model", "m", "outcome", "refused").timer().count())
                .isEqualTo(1);

        // Gauges from the store: 6 requests, 720 tokens recorded: saturation max(0.6, 0.72).
        assertThat(gauge("llm_ratelimit.model.saturation.ratio", "model", "m")).isEqualTo(0.72);
        assertThat(gauge("llm_ratelimit.model.strict", "model", "m")).isEqualTo(1);
        assertThat(gauge("llm_ratelimit.window.remaining", "model", "m")).isEqualTo(45.0);
        assertThat(registry.get("llm_ratelimit.window.remaining").gauge().getId().getBaseUnit()).isEqualTo("seconds");
        assertThat(gauge("llm_ratelimit.pool.requests", "model", "m", "pool", "default")).isEqualTo(3);
        assertThat(gauge("llm_ratelimit.pool.tokens", "model", "m", "pool", "prod")).isEqualTo(360);
        assertThat(gauge("llm_ratelimit.pool.requests.limit", "model", "m", "pool", "default")).isEqualTo(2);
        assertThat(gauge("llm_ratelimit.pool.tokens.limit", "model", "m", "pool", "prod")).isEqualTo(500);
        assertThat(registry.get("llm_ratelimit.store.failures").tags("operation", "decide").counter().count()).isZero();
        metrics.close();
    }

    @Test
    void aReloadKeepsTheCountsAndGivesTheGaugesToTheNewPolicy() {
        RateLimitPolicy first = policy("models.m.rpm=10");
        Metrics before = MicrometerTelemetry.of(registry).metrics(first, health);
        admit(limiter(before, first), "m", null).complete(new Usage(10, 1, 0));
        before.close();
        assertThat(registry.find("llm_ratelimit.pool.requests").gauges()).isEmpty();

        RateLimitPolicy second = policy("models.m.rpm=20");
        Metrics after = MicrometerTelemetry.of(registry).metrics(second, health);
        admit(limiter(after, second), "m", null).complete(new Usage(10, 1, 0));

        assertThat(decisions("m", "default", "admitted", "none", "generous")).isEqualTo(2);
        assertThat(registry.find("llm_ratelimit.model.saturation.ratio").gauges()).hasSize(1);
        assertThat(gauge("llm_ratelimit.model.saturation.ratio", "model", "m")).isEqualTo(0.1);
        after.close();
    }

    @Test
    void aRefusalByALimitOfAFurtherWindowNamesTheWindow() {
        RateLimitPolicy policy = policy("models.m.rpm=10", "models.m.limits.requests.1h=1");
        Metrics metrics = MicrometerTelemetry.of(registry).metrics(policy, health);
        RateLimiter limiter = limiter(metrics, policy);
        admit(limiter, "m", null).abort();
        admit(limiter, "m", null).abort();

        assertThat(decisions("m", "default", "admitted", "none", "generous")).isEqualTo(1);
        assertThat(decisions("m", "default", "refused", "model_requests_1h", "generous")).isEqualTo(1);
        metrics.close();
    }

    private double decisions(String model, String pool, String outcome, String limit, String mode) {
        return registry.get("llm_ratelimit.decisions").tags("model", model, "pool", pool, "outcome", outcome,
                "limit", limit, "mode", mode, "shadow", "false").counter().count();
    }

    private double gauge(String name, String... tags) {
        return registry.get(name).tags(tags).gauge().value();
    }

    /** The model's own gauge among those with these tags: the one without a pool. */
    private double modelGauge(String name, String... tags) {
        return registry.get(name).tags(tags).gauges().stream().filter(gauge -> gauge.getId().getTag("pool") == null)
                .findFirst().orElseThrow().value();
    }
}
