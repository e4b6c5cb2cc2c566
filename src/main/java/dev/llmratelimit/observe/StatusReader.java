package dev.llmratelimit.observe;

import dev.llmratelimit.engine.DecisionObserver;
import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.Limits;
import dev.llmratelimit.engine.PoolSharing;
import dev.llmratelimit.engine.ModelCounters;
import dev.llmratelimit.engine.ModelGroups;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.engine.WindowCounters;
import dev.llmratelimit.policy.EnforcementMode;
import dev.llmratelimit.policy.ModelPolicy;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.policy.WindowMode;

import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Builds the {@link StatusReport}: one store snapshot per configured model (with Redis one round
 * trip each, through the store's circuit), the store's health and the configuration's origin.
 */
public final class StatusReader {

    private final Supplier<RateLimiter> limiter;
    private final StoreHealth health;
    private final Supplier<ConfigurationStatus> configuration;
    private final BudgetStatus.Source budgets;
    private final RecentActivity recent;
    private final Clock clock;

    /**
     * @param limiter the limiter in force (a reload swaps it)
     * @param recent  this instance's recent decisions
     */
    public StatusReader(Supplier<RateLimiter> limiter, StoreHealth health, Supplier<ConfigurationStatus> configuration,
                        BudgetStatus.Source budgets, RecentActivity recent, Clock clock) {
        this.limiter = limiter;
        this.health = health;
        this.configuration = configuration;
        this.budgets = budgets;
        this.recent = recent;
        this.clock = clock;
    }

    public StatusReport read() {
        RateLimiter limiter = this.limiter.get();
        RateLimitPolicy policy = limiter.policy();
        List<StatusReport.Model> models = new ArrayList<>();
        for (ModelPolicy model : new TreeMap<>(policy.models()).values()) {
            ModelGroups groups = limiter.groupsOf(model.name());
            if (groups != null) {
                models.add(model(limiter, model, groups, policy.window().toMillis()));
            }
        }
        return new StatusReport(clock.instant().truncatedTo(ChronoUnit.MILLIS), policy.mode() == EnforcementMode.SHADOW ? "shadow" : "enforce",
                policy.window().toMillis(), policy.windowMode() == WindowMode.SLIDING ? "sliding" : "fixed",
                configuration.get(), store(), List.copyOf(models), List.copyOf(budgets.get()));
    }

    private StatusReport.Model model(RateLimiter limiter, ModelPolicy model, ModelGroups groups, long windowMillis) {
        ModelCounters counters;
        try {
            counters = limiter.snapshot(model.name());
        } catch (StoreUnavailableException e) {
            counters = null;                         // the limiter reported the failure
        }
        Limits limits = groups.model().limits();
        boolean enforced = groups.poolsEnforced();
        boolean available = counters != null;
        double saturation = available ? groups.saturation(counters) : -1;
        boolean strict = available && enforced && saturation >= model.saturationThreshold();
        List<StatusReport.Pool> pools = new ArrayList<>();
        for (int index = 0; index < groups.pools().size(); index++) {
            CounterGroup pool = groups.pools().get(index);
            Limits poolLimits = available ? pool.limitsWith(counters.active()) : pool.limits();
            PoolSharing sharing = pool.sharing();
            pools.add(new StatusReport.Pool(pool.member(), model.shareOf(pool.member()),
                    available && limits.limitsRequests() ? counters.window(0).pool(index, Dimension.REQUESTS) : -1,
                    enforced && limits.limitsRequests() ? poolLimits.requests() : -1,
                    available && limits.limitsTokens() ? counters.window(0).pool(index, Dimension.TOKENS) : -1,
                    enforced && limits.limitsTokens() ? poolLimits.tokens() : -1,
                    available && counters.active(index),
                    sharing == null || !available ? -1 : sharing.shareAmong(counters.active())));
        }
        return new StatusReport.Model(model.name(), limits.limitsRequests() ? limits.requests() : -1,
                limits.limitsTokens() ? limits.tokens() : -1, model.saturationThreshold(), enforced,
                groups.sharesWork() ? "work-conserving" : "saturation",
                available, saturation, strict ? "strict" : "generous",
                available ? counters.remainingMillis() : -1,
                available && limits.limitsRequests() ? counters.requests() : -1,
                available && limits.limitsTokens() ? counters.tokens() : -1, List.copyOf(pools),
                limits(groups, counters), recent.refusedWithin(model.name(), windowMillis), recent.history(model.name()));
    }

    /** Every limit of the model, window by window, with what each counted ({@code counters} null: unavailable). */
    private static List<StatusReport.Limit> limits(ModelGroups groups, ModelCounters counters) {
        boolean enforced = groups.poolsEnforced();
        List<StatusReport.Limit> limits = new ArrayList<>();
        for (int w = 0; w < groups.windows().size(); w++) {
            ModelGroups.Window window = groups.windows().get(w);
            WindowCounters counted = counters == null ? null : counters.window(w);
            for (Dimension dimension : Dimension.WINDOWED) {
                if (!window.model().limits().limits(dimension)) {
                    continue;
                }
                List<StatusReport.PoolLimit> pools = new ArrayList<>(window.pools().size());
                for (int p = 0; p < window.pools().size(); p++) {
                    CounterGroup pool = window.pools().get(p);
                    Limits poolLimits = w == 0 && counters != null ? pool.limitsWith(counters.active()) : pool.limits();
                    pools.add(new StatusReport.PoolLimit(pool.member(), counted == null ? -1 : counted.pool(p, dimension),
                            enforced ? poolLimits.of(dimension) : -1));
                }
                limits.add(new StatusReport.Limit(dimension.configName(), window.model().window().millis(),
                        window.model().limits().of(dimension), counted == null ? -1 : counted.of(dimension),
                        counted == null ? -1 : counted.remainingMillis(), List.copyOf(pools)));
            }
        }
        return List.copyOf(limits);
    }

    private StatusReport.Store store() {
        Map<String, String> circuits = new TreeMap<>();
        health.circuits().forEach((name, breaker) -> circuits.put(name, breaker.isOpen() ? "open" : "closed"));
        Map<String, Long> failures = new LinkedHashMap<>();
        for (DecisionObserver.StoreOperation operation : DecisionObserver.StoreOperation.values()) {
            failures.put(operation.label(), health.failures(operation));
        }
        DecisionObserver.StoreOperation last = health.lastFailedOperation();
        OptionalLong local = health.localDecisions();
        return new StatusReport.Store(health.kind(), health.healthy(), circuits, failures, health.lastFailure(),
                last == null ? null : last.label(), local.isPresent() ? Long.valueOf(local.getAsLong()) : null);
    }
}
