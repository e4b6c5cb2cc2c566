package dev.llmratelimit.observe.micrometer;

import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.Limits;
import dev.llmratelimit.engine.ModelCounters;
import dev.llmratelimit.engine.ModelGroups;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.observe.Instrument;
import dev.llmratelimit.policy.Durations;
import dev.llmratelimit.policy.RateLimitPolicy;
import io.micrometer.core.instrument.Tags;

import java.util.function.ToDoubleFunction;

/**
 * The gauges read from the store: per configured model one snapshot per collection
 * ({@link Collected}), shown by all of that model's gauges. A model whose snapshot fails shows NaN
 * for that collection (the limiter counts the store failure).
 */
final class PolicyGauges {

    private final Meters meters;
    private final RateLimitPolicy policy;
    private final RateLimiter limiter;

    PolicyGauges(Meters meters, RateLimitPolicy policy, RateLimiter limiter) {
        this.meters = meters;
        this.policy = policy;
        this.limiter = limiter;
    }

    void register() {
        for (String model : policy.models().keySet()) {
            ModelGroups groups = limiter.groupsOf(model);
            if (groups != null) {
                register(groups, new Collected<>(() -> snapshot(model)));
            }
        }
    }

    private ModelCounters snapshot(String model) {
        try {
            return limiter.snapshot(model);
        } catch (StoreUnavailableException e) {
            return null;                             // the limiter reported the failure
        }
    }

    private void register(ModelGroups groups, Collected<ModelCounters> counters) {
        Tags model = Tags.of("model", groups.name());
        double threshold = policy.models().get(groups.name()).saturationThreshold();
        boolean enforced = groups.poolsEnforced();
        gauge(Instrument.SATURATION, model, counters, groups::saturation);
        gauge(Instrument.STRICT, model, counters, read -> enforced && groups.saturation(read) >= threshold ? 1 : 0);
        gauge(Instrument.WINDOW_REMAINING, model, counters, read -> read.remainingMillis() / 1000.0);
        Limits limits = groups.model().limits();
        for (int index = 0; index < groups.pools().size(); index++) {
            int pool = index;
            CounterGroup poolGroup = groups.pools().get(index);
            Tags tags = model.and("pool", poolGroup.member());
            if (limits.limitsRequests()) {
                gauge(Instrument.POOL_REQUESTS, tags, counters, read -> read.window(0).pool(pool, Dimension.REQUESTS));
                if (enforced) {
                    gauge(Instrument.POOL_REQUESTS_LIMIT, tags, counters,
                            read -> poolGroup.limitsWith(read.active()).requests());
                }
            }
            if (limits.limitsTokens()) {
                gauge(Instrument.POOL_TOKENS, tags, counters, read -> read.window(0).pool(pool, Dimension.TOKENS));
                if (enforced) {
                    gauge(Instrument.POOL_TOKENS_LIMIT, tags, counters, read -> poolGroup.limitsWith(read.active()).tokens());
                }
            }
            if (groups.sharesWork()) {
                gauge(Instrument.POOL_ACTIVE, tags, counters, read -> read.active(pool) ? 1 : 0);
            }
        }
        registerLimits(groups, counters, model, enforced);
    }

    /** Per window and limited dimension: what the model and each pool counted, and their limits. */
    private void registerLimits(ModelGroups groups, Collected<ModelCounters> counters, Tags model, boolean enforced) {
        for (int w = 0; w < groups.windows().size(); w++) {
            int windowIndex = w;
            ModelGroups.Window window = groups.windows().get(w);
            String length = Durations.format(window.model().window().millis());
            for (Dimension dimension : Dimension.WINDOWED) {
                if (!window.model().limits().limits(dimension)) {
                    continue;
                }
                Tags limit = model.and("dimension", dimension.configName(), "window", length);
                long capacity = window.model().limits().of(dimension);
                gauge(Instrument.LIMIT_USED, limit, counters, read -> read.window(windowIndex).of(dimension));
                gauge(Instrument.LIMIT_CAPACITY, limit, counters, read -> capacity);
                for (int p = 0; p < window.pools().size(); p++) {
                    int pool = p;
                    CounterGroup poolGroup = window.pools().get(p);
                    Tags tags = limit.and("pool", poolGroup.member());
                    gauge(Instrument.LIMIT_USED, tags, counters, read -> read.window(windowIndex).pool(pool, dimension));
                    if (enforced) {
                        gauge(Instrument.LIMIT_CAPACITY, tags, counters, read -> poolGroup.limits().of(dimension));
                    }
                }
            }
        }
    }

    private void gauge(Instrument instrument, Tags tags, Collected<ModelCounters> counters,
                       ToDoubleFunction<ModelCounters> value) {
        meters.gauge(instrument, tags, () -> {
            ModelCounters read = counters.get();
            return read == null ? Double.NaN : value.applyAsDouble(read);
        });
    }
}
