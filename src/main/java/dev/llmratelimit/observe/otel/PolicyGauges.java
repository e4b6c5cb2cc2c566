package dev.llmratelimit.observe.otel;

import dev.llmratelimit.engine.DecisionPlan;
import dev.llmratelimit.engine.ModelCounters;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.policy.RateLimitPolicy;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.BatchCallback;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableDoubleMeasurement;
import io.opentelemetry.api.metrics.ObservableLongMeasurement;

import java.util.List;

/**
 * The gauges read from the store: one snapshot per configured model per collection (with Redis,
 * one round trip each), feeding every gauge of that model in one batch callback. A model whose
 * snapshot fails reports nothing for that collection (the limiter counts the store failure).
 */
final class PolicyGauges {

    private final Meter meter;
    private final RateLimitPolicy policy;
    private final RateLimiter limiter;
    private final DecisionAttributes attributes;
    private final ObservableDoubleMeasurement saturation;
    private final ObservableLongMeasurement strict;
    private final ObservableDoubleMeasurement windowLeft;
    private final ObservableLongMeasurement poolRequests;
    private final ObservableLongMeasurement poolTokens;
    private final ObservableLongMeasurement poolRequestLimit;
    private final ObservableLongMeasurement poolTokenLimit;

    PolicyGauges(Meter meter, RateLimitPolicy policy, RateLimiter limiter, DecisionAttributes attributes) {
        this.meter = meter;
        this.policy = policy;
        this.limiter = limiter;
        this.attributes = attributes;
        saturation = meter.gaugeBuilder("llm_ratelimit.model.saturation").setUnit("1")
                .setDescription("max(requests / rpm, tokens / tpm) of the model's live window").buildObserver();
        strict = meter.gaugeBuilder("llm_ratelimit.model.strict").ofLongs().setUnit("1")
                .setDescription("1 while pool limits are enforced (saturation at or above the threshold)").buildObserver();
        windowLeft = meter.gaugeBuilder("llm_ratelimit.window.remaining").setUnit("s")
                .setDescription("Time left in the model's live window").buildObserver();
        poolRequests = meter.gaugeBuilder("llm_ratelimit.pool.requests").ofLongs().setUnit("{request}")
                .setDescription("Requests counted in the pool's live window").buildObserver();
        poolTokens = meter.gaugeBuilder("llm_ratelimit.pool.tokens").ofLongs().setUnit("{token}")
                .setDescription("Tokens counted in the pool's live window").buildObserver();
        poolRequestLimit = meter.gaugeBuilder("llm_ratelimit.pool.requests.limit").ofLongs().setUnit("{request}")
                .setDescription("The pool's request limit in strict mode").buildObserver();
        poolTokenLimit = meter.gaugeBuilder("llm_ratelimit.pool.tokens.limit").ofLongs().setUnit("{token}")
                .setDescription("The pool's token limit in strict mode").buildObserver();
    }

    BatchCallback register() {
        return meter.batchCallback(this::observe, saturation, strict, windowLeft, poolRequests, poolTokens,
                poolRequestLimit, poolTokenLimit);
    }

    private void observe() {
        for (String model : policy.models().keySet()) {
            List<DecisionPlan> plans = limiter.plansOf(model);
            if (plans.isEmpty()) {
                continue;
            }
            ModelCounters counters;
            try {
                counters = limiter.snapshot(model);
            } catch (StoreUnavailableException e) {
                continue;                            // the limiter reported the failure
            }
            observe(plans, counters);
        }
    }

    private void observe(List<DecisionPlan> plans, ModelCounters counters) {
        DecisionPlan first = plans.get(0);
        DecisionAttributes.ModelAttributes model = attributes.model(first.model());
        double modelSaturation = counters.saturation(first);
        saturation.record(modelSaturation, model.model);
        strict.record(first.poolsEnforced() && modelSaturation >= first.saturationThreshold() ? 1 : 0, model.model);
        windowLeft.record(counters.remainingMillis() / 1000.0, model.model);
        for (DecisionPlan plan : plans) {
            Attributes pool = model.pool(plan.pool()).pool;
            if (plan.limitsRequests()) {
                poolRequests.record(counters.poolRequests(plan.poolIndex()), pool);
                if (plan.poolsEnforced()) {
                    poolRequestLimit.record(plan.poolRpm(), pool);
                }
            }
            if (plan.limitsTokens()) {
                poolTokens.record(counters.poolTokens(plan.poolIndex()), pool);
                if (plan.poolsEnforced()) {
                    poolTokenLimit.record(plan.poolTpm(), pool);
                }
            }
        }
    }
}
