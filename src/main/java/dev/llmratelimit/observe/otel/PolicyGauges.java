package dev.llmratelimit.observe.otel;

import dev.llmratelimit.observe.Instrument;
import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.Limits;
import dev.llmratelimit.engine.ModelCounters;
import dev.llmratelimit.engine.ModelGroups;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.engine.WindowCounters;
import dev.llmratelimit.policy.Durations;
import dev.llmratelimit.policy.RateLimitPolicy;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.BatchCallback;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableDoubleMeasurement;
import io.opentelemetry.api.metrics.ObservableLongMeasurement;

import java.util.HashMap;
import java.util.Map;

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
    private final ObservableLongMeasurement poolActive;
    private final ObservableLongMeasurement limitUsed;
    private final ObservableLongMeasurement limitCapacity;
    /** Per configured model, per window, per limited dimension: the model's and each pool's attributes. */
    private final Map<String, LimitAttributes[][]> limitAttributes = new HashMap<>();

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
        poolActive = meter.gaugeBuilder(Instrument.POOL_ACTIVE.id()).ofLongs().setUnit(Instrument.POOL_ACTIVE.unit())
                .setDescription(Instrument.POOL_ACTIVE.description()).buildObserver();
        limitUsed = meter.gaugeBuilder(Instrument.LIMIT_USED.id()).ofLongs().setUnit(Instrument.LIMIT_USED.unit())
                .setDescription(Instrument.LIMIT_USED.description()).buildObserver();
        limitCapacity = meter.gaugeBuilder(Instrument.LIMIT_CAPACITY.id()).ofLongs().setUnit(Instrument.LIMIT_CAPACITY.unit())
                .setDescription(Instrument.LIMIT_CAPACITY.description()).buildObserver();
        for (String model : policy.models().keySet()) {
            ModelGroups groups = limiter.groupsOf(model);
            if (groups != null) {
                limitAttributes.put(model, LimitAttributes.of(groups));
            }
        }
    }

    BatchCallback register() {
        return meter.batchCallback(this::observe, saturation, strict, windowLeft, poolRequests, poolTokens,
                poolRequestLimit, poolTokenLimit, poolActive, limitUsed, limitCapacity);
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
        observeLimits(groups, counters, enforced);
        Limits limits = groups.model().limits();
        for (int index = 0; index < groups.pools().size(); index++) {
            CounterGroup poolGroup = groups.pools().get(index);
            Attributes pool = model.pool(poolGroup.member()).pool;
            Limits poolLimits = poolGroup.limitsWith(counters.active());
            if (limits.limitsRequests()) {
                poolRequests.record(counters.window(0).pool(index, Dimension.REQUESTS), pool);
                if (enforced) {
                    poolRequestLimit.record(poolLimits.requests(), pool);
                }
            }
            if (limits.limitsTokens()) {
                poolTokens.record(counters.window(0).pool(index, Dimension.TOKENS), pool);
                if (enforced) {
                    poolTokenLimit.record(poolLimits.tokens(), pool);
                }
            }
            if (groups.sharesWork()) {
                poolActive.record(counters.active(index) ? 1 : 0, pool);
            }
        }
    }

    private void observeLimits(ModelGroups groups, ModelCounters counters, boolean enforced) {
        LimitAttributes[][] attributes = limitAttributes.get(groups.name());
        for (int w = 0; w < groups.windows().size(); w++) {
            ModelGroups.Window window = groups.windows().get(w);
            WindowCounters counted = counters.window(w);
            for (LimitAttributes limit : attributes[w]) {
                limitUsed.record(counted.of(limit.dimension), limit.model);
                limitCapacity.record(window.model().limits().of(limit.dimension), limit.model);
                for (int p = 0; p < window.pools().size(); p++) {
                    limitUsed.record(counted.pool(p, limit.dimension), limit.pools[p]);
                    if (enforced) {
                        limitCapacity.record(window.pools().get(p).limits().of(limit.dimension), limit.pools[p]);
                    }
                }
            }
        }
    }

    /** The attributes of one limit ({@code model}, {@code dimension}, {@code window}), the model's and each pool's. */
    private record LimitAttributes(Dimension dimension, Attributes model, Attributes[] pools) {

        private static final AttributeKey<String> DIMENSION = AttributeKey.stringKey("dimension");
        private static final AttributeKey<String> WINDOW = AttributeKey.stringKey("window");

        static LimitAttributes[][] of(ModelGroups groups) {
            LimitAttributes[][] windows = new LimitAttributes[groups.windows().size()][];
            for (int w = 0; w < windows.length; w++) {
                ModelGroups.Window window = groups.windows().get(w);
                String length = Durations.format(window.model().window().millis());
                windows[w] = Dimension.WINDOWED.stream().filter(window.model().limits()::limits).map(dimension -> {
                    Attributes model = Attributes.of(DecisionAttributes.MODEL, groups.name(), DIMENSION,
                            dimension.configName(), WINDOW, length);
                    Attributes[] pools = window.pools().stream().map(pool -> model.toBuilder()
                            .put(DecisionAttributes.POOL, pool.member()).build()).toArray(Attributes[]::new);
                    return new LimitAttributes(dimension, model, pools);
                }).toArray(LimitAttributes[]::new);
            }
            return windows;
        }
    }
}
