package dev.llmratelimit.observe.micrometer;

import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.observe.DecisionLabels;
import dev.llmratelimit.observe.LimitLabels;
import dev.llmratelimit.observe.Instrument;
import dev.llmratelimit.policy.ModelPolicy;
import dev.llmratelimit.policy.RateLimitPolicy;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The decision counters, token counters and decision timers of one policy, each registered on first
 * use and then kept in an array slot, so that measuring a decision looks nothing up. Only configured
 * models and pools have entries; everything else is measured as {@link DecisionLabels#UNCONFIGURED_MODEL}.
 */
final class DecisionMeters {

    /** The OpenTelemetry histogram's bucket boundaries, 50 µs to 2.5 s. */
    private static final Duration[] LATENCY_BUCKETS = {Duration.ofNanos(50_000), Duration.ofNanos(100_000),
            Duration.ofNanos(250_000), Duration.ofNanos(500_000), Duration.ofMillis(1), Duration.ofNanos(2_500_000),
            Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50),
            Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
            Duration.ofMillis(2500)};

    private final Meters meters;
    /** The labels of the limits that refused, by index. */
    final LimitLabels limits = new LimitLabels();
    private final Map<String, ModelMeters> models = new HashMap<>();
    private final ModelMeters unconfigured;

    DecisionMeters(Meters meters, RateLimitPolicy policy) {
        this.meters = meters;
        for (ModelPolicy model : policy.models().values()) {
            ModelMeters modelMeters = new ModelMeters(model.name());
            for (String pool : model.poolNames()) {
                modelMeters.pools.put(pool, new PoolMeters(model.name(), pool));
            }
            models.put(model.name(), modelMeters);
        }
        unconfigured = new ModelMeters(DecisionLabels.UNCONFIGURED_MODEL);
        unconfigured.pools.put(DecisionLabels.NO_POOL, new PoolMeters(DecisionLabels.UNCONFIGURED_MODEL, DecisionLabels.NO_POOL));
    }

    /** The model of a decision: {@code null} plan means an unconfigured model. */
    ModelMeters model(Plan plan) {
        return model(plan == null ? null : plan.model());
    }

    /** A configured model by name, or the unconfigured entry for any other name. */
    ModelMeters model(String name) {
        ModelMeters model = name == null ? null : models.get(name);
        return model != null ? model : unconfigured;
    }

    /** The meters of one model: its pools' and its decision timers. */
    final class ModelMeters {
        final String name;
        private final Map<String, PoolMeters> pools = new HashMap<>();
        private final Timer[] latency = new Timer[DecisionLabels.outcomeCount()];

        private ModelMeters(String name) {
            this.name = name;
        }

        /** A pool of the plan; the unconfigured model's only pool when there is no plan. */
        PoolMeters pool(Plan plan) {
            PoolMeters pool = plan == null ? null : pools.get(plan.pool());
            return pool != null ? pool : pools.values().iterator().next();
        }

        Timer latency(int outcome) {
            Timer timer = latency[outcome];
            if (timer == null) {
                Instrument instrument = Instrument.DECISION_DURATION;
                timer = Timer.builder(instrument.id()).description(instrument.description())
                        .tags("model", name, "outcome", DecisionLabels.outcome(outcome))
                        .serviceLevelObjectives(LATENCY_BUCKETS).register(meters.registry());
                latency[outcome] = timer;
            }
            return timer;
        }
    }

    /** The counters of one (model, pool); a race on first use only registers the same counter twice. */
    final class PoolMeters {

        private final String model;
        private final String name;
        private final Counter[] decisions = new Counter[limits.slots()];
        private Counter inputTokens;
        private Counter outputTokens;

        private PoolMeters(String model, String name) {
            this.model = model;
            this.name = name;
        }

        Counter decision(int outcome, int limit, int mode, boolean shadow) {
            int index = limits.slot(outcome, limit, mode, shadow);
            Counter counter = decisions[index];
            if (counter == null) {
                counter = meters.counter(Instrument.DECISIONS, Tags.of("model", model, "pool", name,
                        "outcome", DecisionLabels.outcome(outcome), "limit", limits.label(limit),
                        "mode", DecisionLabels.mode(mode), "shadow", Boolean.toString(shadow)));
                decisions[index] = counter;
            }
            return counter;
        }

        Counter inputTokens() {
            if (inputTokens == null) {
                inputTokens = tokens("input");
            }
            return inputTokens;
        }

        Counter outputTokens() {
            if (outputTokens == null) {
                outputTokens = tokens("output");
            }
            return outputTokens;
        }

        private Counter tokens(String type) {
            return meters.counter(Instrument.TOKENS, Tags.of("model", model, "pool", name, "type", type));
        }
    }
}
