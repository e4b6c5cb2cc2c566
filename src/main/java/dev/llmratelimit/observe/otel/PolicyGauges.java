package dev.llmratelimit.observe.otel;

import dev.llmratelimit.observe.Instrument;
import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.Limits;
import dev.llmratelimit.engine.ModelCounters;
import dev.llmratelimit.engine.ModelGroups;
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
        saturation = meter.gaugeBuilder(Instrument.SATURATION.id()).setUnit(Instrument.SATURATION.unit())
                .setDescription(Instrument.SATURATION.description()).buildObserver();
        strict = meter.gaugeBuilder(Instrument.STRICT.id()).ofLongs().setUnit(Instrument.STRICT.unit())
                .setDescription(Instrument.STRICT.description()).buildObserver();
        windowLeft = meter.gaugeBuilder(Instrument.WINDOW_REMAINING.id()).setUnit(Instrument.WINDOW_REMAINING.unit())
                .setDescription(Instrument.WINDOW_REMAINING.description()).buildObserver();
        poolRequests = meter.gaugeBuilder(Instrument.POOL_REQUESTS.id()).ofLongs().setUnit(Instrument.POOL_REQUESTS.unit())
                .setDescription(Instrument.POOL_REQUESTS.description()).buildObserver();
        poolTokens = meter.gaugeBuilder(Instrument.POOL_TOKENS.id()).ofLongs().setUnit(Instrument.POOL_TOKENS.unit())
                .setDescription(Instrument.POOL_TOKENS.description()).buildObserver();
        poolRequestLimit = meter.gaugeBuilder(Instrument.POOL_REQUESTS_LIMIT.id()).ofLongs().setUnit(Instrument.POOL_REQUESTS_LIMIT.unit())
                .setDescription(Instrument.POOL_REQUESTS_LIMIT.description()).buildObserver();
        poolTokenLimit = meter.gaugeBuilder(Instrument.POOL_TOKENS_LIMIT.id()).ofLongs().setUnit(Instrument.POOL_TOKENS_LIMIT.unit())
                .setDescription(Instrument.POOL_TOKENS_LIMIT.description()).buildObserver();
    }

    BatchCallback register() {
        return meter.batchCallback(this::observe, saturation, strict, windowLeft, poolRequests, poolTokens,
                poolRequestLimit, poolTokenLimit);
    }

    private void observe() {
        for (String model : policy.models().keySet()) {
            ModelGroups groups = limiter.groupsOf(model);
            if (groups == null) {
                continue;
            }
            ModelCounters counters;
            try {
                counters = limiter.snapshot(model);
            } catch (StoreUnavailableException e) {
                continue;                            // the limiter reported the failure
            }
            observe(groups, counters);
        }
    }

    private void observe(ModelGroups groups, ModelCounters counters) {
        DecisionAttributes.ModelAttributes model = attributes.model(groups.name());
        double modelSaturation = groups.saturation(counters);
        boolean enforced = groups.poolsEnforced();
        saturation.record(modelSaturation, model.model);
        strict.record(enforced && modelSaturation >= policy.models().get(groups.name()).saturationThreshold() ? 1 : 0,
                model.model);
        windowLeft.record(counters.remainingMillis() / 1000.0, model.model);
        Limits limits = groups.model().limits();
        for (int index = 0; index < groups.pools().size(); index++) {
            CounterGroup poolGroup = groups.pools().get(index);
            Attributes pool = model.pool(poolGroup.member()).pool;
            if (limits.limitsRequests()) {
                poolRequests.record(counters.poolRequests(index), pool);
                if (enforced) {
                    poolRequestLimit.record(poolGroup.limits().requests(), pool);
                }
            }
            if (limits.limitsTokens()) {
                poolTokens.record(counters.poolTokens(index), pool);
                if (enforced) {
                    poolTokenLimit.record(poolGroup.limits().tokens(), pool);
                }
            }
        }
    }
}
