package dev.llmratelimit.observe.otel;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.engine.Verdict;
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
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.trace.Span;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The library's meters (docs/observability.md lists them) and the span attributes of a decision.
 * Counters and the latency histogram are fed by the engine; the gauges ({@link PolicyGauges}) read
 * the store when the SDK collects.
 */
final class OpenTelemetryMetrics implements Metrics {

    static final AttributeKey<String> SPAN_OUTCOME = AttributeKey.stringKey("llm_ratelimit.outcome");
    static final AttributeKey<String> SPAN_MODEL = AttributeKey.stringKey("llm_ratelimit.model");
    static final AttributeKey<String> SPAN_POOL = AttributeKey.stringKey("llm_ratelimit.pool");
    static final AttributeKey<Double> SPAN_SATURATION = AttributeKey.doubleKey("llm_ratelimit.saturation");
    static final AttributeKey<Boolean> SPAN_SHADOW = AttributeKey.booleanKey("llm_ratelimit.shadow");

    private static final AttributeKey<String> OPERATION = AttributeKey.stringKey("operation");
    private static final AttributeKey<String> FATE = AttributeKey.stringKey("fate");
    private static final AttributeKey<String> SCOPE = AttributeKey.stringKey("scope");
    private static final AttributeKey<String> ENTRY_POINT = AttributeKey.stringKey("entry_point");
    private static final Set<String> SCOPES = Set.of("key", "user", "team");
    private static final List<Double> LATENCY_BUCKETS = List.of(0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025,
            0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5);

    private final Meter meter;
    private final RateLimitPolicy policy;
    private final DecisionAttributes attributes;
    private final LongCounter decisions;
    private final LongCounter tokens;
    private final LongCounter spend;
    private final LongCounter softBudgets;
    private final LongCounter storeFailures;
    private final LongCounter internalErrors;
    private final DoubleHistogram latency;
    private final Attributes[] failureAttributes;
    private final List<AutoCloseable> gauges = new ArrayList<>();

    OpenTelemetryMetrics(Meter meter, RateLimitPolicy policy, StoreHealth health) {
        this.meter = meter;
        this.policy = policy;
        this.attributes = new DecisionAttributes(policy);
        decisions = meter.counterBuilder(Instrument.DECISIONS.id()).setUnit(Instrument.DECISIONS.unit())
                .setDescription(Instrument.DECISIONS.description()).build();
        tokens = meter.counterBuilder(Instrument.TOKENS.id()).setUnit(Instrument.TOKENS.unit())
                .setDescription(Instrument.TOKENS.description()).build();
        spend = meter.counterBuilder(Instrument.SPEND.id()).setUnit(Instrument.SPEND.unit())
                .setDescription(Instrument.SPEND.description()).build();
        softBudgets = meter.counterBuilder(Instrument.SOFT_BUDGETS_REACHED.id()).setUnit(Instrument.SOFT_BUDGETS_REACHED.unit())
                .setDescription(Instrument.SOFT_BUDGETS_REACHED.description()).build();
        storeFailures = meter.counterBuilder(Instrument.STORE_FAILURES.id()).setUnit(Instrument.STORE_FAILURES.unit())
                .setDescription(Instrument.STORE_FAILURES.description()).build();
        internalErrors = meter.counterBuilder(Instrument.INTERNAL_ERRORS.id()).setUnit(Instrument.INTERNAL_ERRORS.unit())
                .setDescription(Instrument.INTERNAL_ERRORS.description())
                .build();
        latency = meter.histogramBuilder(Instrument.DECISION_DURATION.id()).setUnit(Instrument.DECISION_DURATION.unit())
                .setDescription(Instrument.DECISION_DURATION.description())
                .setExplicitBucketBoundariesAdvice(LATENCY_BUCKETS).build();
        StoreOperation[] operations = StoreOperation.values();
        failureAttributes = new Attributes[operations.length];
        for (StoreOperation operation : operations) {
            failureAttributes[operation.ordinal()] = Attributes.of(OPERATION, operation.label());
        }
        gauges.add(meter.gaugeBuilder(Instrument.CIRCUIT_OPEN.id()).ofLongs()
                .setDescription(Instrument.CIRCUIT_OPEN.description()).setUnit(Instrument.CIRCUIT_OPEN.unit())
                .buildWithCallback(measurement -> {
                    for (Map.Entry<String, CircuitBreaker> circuit : health.circuits().entrySet()) {
                        measurement.record(circuit.getValue().isOpen() ? 1 : 0,
                                Attributes.of(AttributeKey.stringKey("circuit"), circuit.getKey()));
                    }
                }));
        health.compensations().ifPresent(this::observeCompensations);
        if (health.localDecisions().isPresent()) {
            gauges.add(meter.counterBuilder(Instrument.LOCAL_DECISIONS.id()).setUnit(Instrument.LOCAL_DECISIONS.unit())
                    .setDescription(Instrument.LOCAL_DECISIONS.description())
                    .buildWithCallback(measurement -> measurement.record(health.localDecisions().orElse(0))));
        }
    }

    /** The queue of settlements a store did not confirm: how many wait, and what became of the others. */
    private void observeCompensations(PendingCompensations pending) {
        gauges.add(meter.gaugeBuilder(Instrument.COMPENSATIONS_PENDING.id()).ofLongs().setUnit(Instrument.COMPENSATIONS_PENDING.unit())
                .setDescription(Instrument.COMPENSATIONS_PENDING.description())
                .buildWithCallback(measurement -> measurement.record(pending.size())));
        PendingCompensations.Fate[] fates = PendingCompensations.Fate.values();
        Attributes[] fateAttributes = new Attributes[fates.length];
        for (PendingCompensations.Fate fate : fates) {
            fateAttributes[fate.ordinal()] = Attributes.of(FATE, fate.name().toLowerCase(Locale.ROOT));
        }
        gauges.add(meter.counterBuilder(Instrument.COMPENSATIONS.id()).setUnit(Instrument.COMPENSATIONS.unit())
                .setDescription(Instrument.COMPENSATIONS.description())
                .buildWithCallback(measurement -> {
                    for (PendingCompensations.Fate fate : fates) {
                        measurement.record(pending.count(fate), fateAttributes[fate.ordinal()]);
                    }
                }));
    }

    @Override
    public void watch(RateLimiter limiter) {
        gauges.add(new PolicyGauges(meter, policy, limiter, attributes).register());
    }

    @Override
    public void watchBudgets(BudgetStatus.Source budgets) {
        gauges.add(new BudgetGauges(meter, budgets).register());
    }

    @Override
    public void decided(Admission admission, long elapsedNanos) {
        Plan plan = admission.plan();
        DecisionAttributes.ModelAttributes model = attributes.model(plan);
        DecisionAttributes.PoolAttributes pool = model.pool(plan);
        int outcome = DecisionLabels.outcomeIndex(admission);
        decisions.add(1, pool.decision(outcome, attributes.limits.index(admission),
                DecisionLabels.modeIndex(admission), admission.isShadow()));
        latency.record(elapsedNanos / 1e9, model.latency(outcome));
        Span span = Span.current();
        if (span.isRecording()) {
            span.setAttribute(SPAN_OUTCOME, DecisionLabels.outcome(outcome));
            span.setAttribute(SPAN_MODEL, model.name);
            span.setAttribute(SPAN_POOL, pool.name());
            span.setAttribute(SPAN_SHADOW, admission.isShadow());
            Verdict verdict = admission.verdict();
            if (verdict != null) {
                span.setAttribute(SPAN_SATURATION, verdict.saturation());
            }
        }
    }

    @Override
    public void recorded(Plan plan, Usage usage) {
        DecisionAttributes.PoolAttributes pool = attributes.model(plan).pool(plan);
        if (usage.promptTokens() > 0) {
            tokens.add(usage.promptTokens(), pool.inputTokens);
        }
        if (usage.completionTokens() > 0) {
            tokens.add(usage.completionTokens(), pool.outputTokens);
        }
        BudgetCharges.count(plan, usage, this);
    }

    @Override
    public void storeFailed(StoreOperation operation) {
        storeFailures.add(1, failureAttributes[operation.ordinal()]);
    }

    @Override
    public void spent(String scope, String model, long microDollars) {
        if (microDollars <= 0) {
            return;
        }
        spend.add(microDollars, Attributes.of(SCOPE, SCOPES.contains(scope) ? scope : "other",
                DecisionAttributes.MODEL, attributes.model(model).name));
    }

    @Override
    public void softBudgetReached(String scope) {
        softBudgets.add(1, Attributes.of(SCOPE, SCOPES.contains(scope) ? scope : "other"));
    }

    @Override
    public void internalError(String entryPoint) {
        internalErrors.add(1, Attributes.of(ENTRY_POINT, entryPoint));
    }

    @Override
    public void close() {
        for (AutoCloseable gauge : gauges) {
            try {
                gauge.close();
            } catch (Exception e) {
                System.getLogger(OpenTelemetryMetrics.class.getName())
                        .log(System.Logger.Level.DEBUG, "Could not stop a gauge", e);
            }
        }
    }
}
