package dev.llmratelimit.observe;

import dev.llmratelimit.engine.DecisionObserver;
import dev.llmratelimit.engine.DecisionPlan;
import dev.llmratelimit.engine.ModelCounters;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.engine.StoreUnavailableException;
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
    private final Clock clock;

    /** @param limiter the limiter in force (a reload swaps it) */
    public StatusReader(Supplier<RateLimiter> limiter, StoreHealth health, Supplier<ConfigurationStatus> configuration,
                        BudgetStatus.Source budgets, Clock clock) {
        this.limiter = limiter;
        this.health = health;
        this.configuration = configuration;
        this.budgets = budgets;
        this.clock = clock;
    }

    public StatusReport read() {
        RateLimiter limiter = this.limiter.get();
        RateLimitPolicy policy = limiter.policy();
        List<StatusReport.Model> models = new ArrayList<>();
        for (ModelPolicy model : new TreeMap<>(policy.models()).values()) {
            List<DecisionPlan> plans = limiter.plansOf(model.name());
            if (!plans.isEmpty()) {
                models.add(model(limiter, model, plans));
            }
        }
        return new StatusReport(clock.instant().truncatedTo(ChronoUnit.MILLIS), policy.mode() == EnforcementMode.SHADOW ? "shadow" : "enforce",
                policy.window().toMillis(), policy.windowMode() == WindowMode.SLIDING ? "sliding" : "fixed",
                configuration.get(), store(), List.copyOf(models), List.copyOf(budgets.get()));
    }

    private StatusReport.Model model(RateLimiter limiter, ModelPolicy model, List<DecisionPlan> plans) {
        ModelCounters counters;
        try {
            counters = limiter.snapshot(model.name());
        } catch (StoreUnavailableException e) {
            counters = null;                         // the limiter reported the failure
        }
        DecisionPlan first = plans.get(0);
        boolean available = counters != null;
        double saturation = available ? counters.saturation(first) : -1;
        boolean strict = available && first.poolsEnforced() && saturation >= first.saturationThreshold();
        List<StatusReport.Pool> pools = new ArrayList<>();
        for (DecisionPlan plan : plans) {
            int index = plan.poolIndex();
            pools.add(new StatusReport.Pool(plan.pool(), model.shareOf(plan.pool()),
                    available && plan.limitsRequests() ? counters.poolRequests(index) : -1,
                    plan.poolsEnforced() && plan.limitsRequests() ? plan.poolRpm() : -1,
                    available && plan.limitsTokens() ? counters.poolTokens(index) : -1,
                    plan.poolsEnforced() && plan.limitsTokens() ? plan.poolTpm() : -1));
        }
        return new StatusReport.Model(model.name(), first.limitsRequests() ? first.modelRpm() : -1,
                first.limitsTokens() ? first.modelTpm() : -1, first.saturationThreshold(), first.poolsEnforced(),
                available, saturation, strict ? "strict" : "generous",
                available ? counters.remainingMillis() : -1,
                available && first.limitsRequests() ? counters.requests() : -1,
                available && first.limitsTokens() ? counters.tokens() : -1, List.copyOf(pools));
    }

    private StatusReport.Store store() {
        Map<String, String> circuits = new TreeMap<>();
        health.circuits().forEach((name, breaker) -> circuits.put(name, breaker.isOpen() ? "open" : "closed"));
        Map<String, Long> failures = new LinkedHashMap<>();
        for (DecisionObserver.StoreOperation operation : DecisionObserver.StoreOperation.values()) {
            failures.put(operation.label(), health.failures(operation));
        }
        DecisionObserver.StoreOperation last = health.lastFailedOperation();
        return new StatusReport.Store(health.kind(), health.healthy(), circuits, failures, health.lastFailure(),
                last == null ? null : last.label());
    }
}
