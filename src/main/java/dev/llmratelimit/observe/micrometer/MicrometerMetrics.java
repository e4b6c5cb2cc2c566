package dev.llmratelimit.observe.micrometer;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.observe.BudgetCharges;
import dev.llmratelimit.observe.BudgetStatus;
import dev.llmratelimit.observe.DecisionLabels;
import dev.llmratelimit.observe.Instrument;
import dev.llmratelimit.observe.Metrics;
import dev.llmratelimit.observe.StoreHealth;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.store.CircuitBreaker;
import dev.llmratelimit.store.PendingCompensations;
import dev.llmratelimit.usage.Usage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The library's meters in a Micrometer registry: the instruments, names and tags of the OpenTelemetry
 * ones (docs/observability.md). Counters and timers are fed by the engine and outlive a reload (the
 * registry keeps them by name and tags); the gauges read this policy's limiter and stores when the
 * registry is collected and are removed when the policy is replaced.
 */
final class MicrometerMetrics implements Metrics {

    private static final Set<String> SCOPES = Set.of("key", "user", "team");

    private final Meters meters;
    private final RateLimitPolicy policy;
    private final DecisionMeters decisions;
    private final Counter[] storeFailures;

    MicrometerMetrics(MeterRegistry registry, RateLimitPolicy policy, StoreHealth health) {
        this.meters = new Meters(registry);
        this.policy = policy;
        this.decisions = new DecisionMeters(meters, policy);
        StoreOperation[] operations = StoreOperation.values();
        storeFailures = new Counter[operations.length];
        for (StoreOperation operation : operations) {
            storeFailures[operation.ordinal()] = meters.counter(Instrument.STORE_FAILURES, Tags.of("operation", operation.label()));
        }
        for (String circuit : health.circuits().keySet()) {
            meters.gauge(Instrument.CIRCUIT_OPEN, Tags.of("circuit", circuit), () -> {
                CircuitBreaker breaker = health.circuits().get(circuit);
                return breaker == null ? Double.NaN : breaker.isOpen() ? 1 : 0;
            });
        }
        health.compensations().ifPresent(this::watchCompensations);
        if (health.localDecisions().isPresent()) {
            meters.functionCounter(Instrument.LOCAL_DECISIONS, Tags.empty(), () -> health.localDecisions().orElse(0));
        }
    }

    private void watchCompensations(PendingCompensations pending) {
        meters.gauge(Instrument.COMPENSATIONS_PENDING, Tags.empty(), pending::size);
        for (PendingCompensations.Fate fate : PendingCompensations.Fate.values()) {
            meters.functionCounter(Instrument.COMPENSATIONS, Tags.of("fate", fate.name().toLowerCase(Locale.ROOT)),
                    () -> pending.count(fate));
        }
    }

    @Override
    public void watch(RateLimiter limiter) {
        new PolicyGauges(meters, policy, limiter).register();
    }

    @Override
    public void watchBudgets(BudgetStatus.Source budgets) {
        new BudgetGauges(meters, budgets).register();
    }

    @Override
    public void decided(Admission admission, long elapsedNanos) {
        Plan plan = admission.plan();
        DecisionMeters.ModelMeters model = decisions.model(plan);
        int outcome = DecisionLabels.outcomeIndex(admission);
        model.pool(plan).decision(outcome, decisions.limits.index(admission), DecisionLabels.modeIndex(admission),
                admission.isShadow()).increment();
        model.latency(outcome).record(elapsedNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void recorded(Plan plan, Usage usage) {
        DecisionMeters.PoolMeters pool = decisions.model(plan).pool(plan);
        if (usage.promptTokens() > 0) {
            pool.inputTokens().increment(usage.promptTokens());
        }
        if (usage.completionTokens() > 0) {
            pool.outputTokens().increment(usage.completionTokens());
        }
        BudgetCharges.count(plan, usage, this);
    }

    @Override
    public void storeFailed(StoreOperation operation) {
        storeFailures[operation.ordinal()].increment();
    }

    @Override
    public void spent(String scope, String model, long microDollars) {
        if (microDollars > 0) {
            meters.counter(Instrument.SPEND, Tags.of("scope", scopeLabel(scope), "model", decisions.model(model).name))
                    .increment(microDollars);
        }
    }

    @Override
    public void softBudgetReached(String scope) {
        meters.counter(Instrument.SOFT_BUDGETS_REACHED, Tags.of("scope", scopeLabel(scope))).increment();
    }

    @Override
    public void internalError(String entryPoint) {
        meters.counter(Instrument.INTERNAL_ERRORS, Tags.of("entry_point", entryPoint)).increment();
    }

    private static String scopeLabel(String scope) {
        return SCOPES.contains(scope) ? scope : "other";
    }

    @Override
    public void close() {
        meters.removeGauges();
    }
}
