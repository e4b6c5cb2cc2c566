package dev.llmratelimit.observe.otel;

import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.observe.DecisionLabels;
import dev.llmratelimit.observe.LimitLabels;
import dev.llmratelimit.policy.ModelPolicy;
import dev.llmratelimit.policy.RateLimitPolicy;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;

import java.util.HashMap;
import java.util.Map;

/**
 * The attribute sets of every measurement, made once per combination (lazily, for the decision
 * counter's many combinations) so that measuring allocates nothing. Only configured models and
 * pools have entries; everything else is measured as {@link DecisionLabels#UNCONFIGURED_MODEL}.
 */
final class DecisionAttributes {

    static final AttributeKey<String> MODEL = AttributeKey.stringKey("model");
    static final AttributeKey<String> POOL = AttributeKey.stringKey("pool");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("outcome");
    static final AttributeKey<String> LIMIT = AttributeKey.stringKey("limit");
    static final AttributeKey<String> MODE = AttributeKey.stringKey("mode");
    static final AttributeKey<Boolean> SHADOW = AttributeKey.booleanKey("shadow");
    static final AttributeKey<String> TYPE = AttributeKey.stringKey("type");

    /** The labels of the limits that refused, by index. */
    final LimitLabels limits = new LimitLabels();
    private final Map<String, ModelAttributes> models = new HashMap<>();
    private final ModelAttributes unconfigured = new ModelAttributes(DecisionLabels.UNCONFIGURED_MODEL);

    DecisionAttributes(RateLimitPolicy policy) {
        for (ModelPolicy model : policy.models().values()) {
            ModelAttributes attributes = new ModelAttributes(model.name());
            for (String pool : model.poolNames()) {
                attributes.pools.put(pool, new PoolAttributes(model.name(), pool, limits));
            }
            models.put(model.name(), attributes);
        }
        unconfigured.pools.put(DecisionLabels.NO_POOL, new PoolAttributes(DecisionLabels.UNCONFIGURED_MODEL,
                DecisionLabels.NO_POOL, limits));
    }

    /** The model of a decision: {@code null} plan means an unconfigured model. */
    ModelAttributes model(Plan plan) {
        ModelAttributes model = plan == null ? null : models.get(plan.model());
        return model != null ? model : unconfigured;
    }

    /** A configured model by name, or the unconfigured entry for any other name. */
    ModelAttributes model(String name) {
        ModelAttributes model = models.get(name);
        return model != null ? model : unconfigured;
    }

    /** The attributes of one model: its pools' and its decision latency's. */
    static final class ModelAttributes {
        final String name;
        final Attributes model;
        private final Map<String, PoolAttributes> pools = new HashMap<>();
        private final Attributes[] latency = new Attributes[DecisionLabels.outcomeCount()];

        private ModelAttributes(String name) {
            this.name = name;
            this.model = Attributes.of(MODEL, name);
            for (int i = 0; i < latency.length; i++) {
                latency[i] = Attributes.of(MODEL, name, OUTCOME, DecisionLabels.outcome(i));
            }
        }

        /** A pool of the plan; the unconfigured model's only pool when there is no plan. */
        PoolAttributes pool(Plan plan) {
            PoolAttributes pool = plan == null ? null : pools.get(plan.pool());
            return pool != null ? pool : pools.values().iterator().next();
        }

        PoolAttributes pool(String name) {
            return pools.get(name);
        }

        Attributes latency(int outcome) {
            return latency[outcome];
        }
    }

    /** The attributes of one (model, pool). */
    static final class PoolAttributes {

        final Attributes pool;
        final Attributes inputTokens;
        final Attributes outputTokens;
        private final String model;
        private final String name;
        private final LimitLabels limits;
        /** Indexed by outcome, limit, mode and shadow; filled on first use (a race only builds an equal set twice). */
        private final Attributes[] decisions;

        private PoolAttributes(String model, String name, LimitLabels limits) {
            this.model = model;
            this.name = name;
            this.limits = limits;
            this.decisions = new Attributes[limits.slots()];
            this.pool = Attributes.of(MODEL, model, POOL, name);
            this.inputTokens = Attributes.of(MODEL, model, POOL, name, TYPE, "input");
            this.outputTokens = Attributes.of(MODEL, model, POOL, name, TYPE, "output");
        }

        String name() {
            return name;
        }

        Attributes decision(int outcome, int limit, int mode, boolean shadow) {
            int index = limits.slot(outcome, limit, mode, shadow);
            Attributes attributes = decisions[index];
            if (attributes == null) {
                attributes = Attributes.builder()
                        .put(MODEL, model).put(POOL, name)
                        .put(OUTCOME, DecisionLabels.outcome(outcome))
                        .put(LIMIT, limits.label(limit))
                        .put(MODE, DecisionLabels.mode(mode))
                        .put(SHADOW, shadow)
                        .build();
                decisions[index] = attributes;
            }
            return attributes;
        }
    }
}
