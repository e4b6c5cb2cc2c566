package dev.llmratelimit.observe.otel;

import dev.llmratelimit.budget.BudgetScope;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.BudgetExtension;
import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.GroupKind;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.observe.BudgetStatus;
import dev.llmratelimit.observe.DecisionLabels;
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
import java.util.EnumSet;
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
        decisions = meter.counterBuilder("llm_ratelimit.decisions").setUnit("{decision}")
                .setDescription("Rate-limit decisions by model, pool, outcome, refusing limit, mode and shadow").build();
        tokens = meter.counterBuilder("llm_ratelimit.tokens").setUnit("{token}")
                .setDescription("Tokens of admitted responses, as recorded after the call").build();
        spend = meter.counterBuilder("llm_ratelimit.spend").setUnit("{microdollar}")
                .setDescription("Money charged to budgets, in micro-dollars").build();
        softBudgets = meter.counterBuilder("llm_ratelimit.budget.soft_reached").setUnit("{budget}")
                .setDescription("Soft budgets reached, once per budget and period on each instance").build();
        storeFailures = meter.counterBuilder("llm_ratelimit.store.failures").setUnit("{failure}")
                .setDescription("Counter store operations that failed or were skipped by an open circuit").build();
        internalErrors = meter.counterBuilder("llm_ratelimit.internal_errors").setUnit("{request}")
                .setDescription("Requests the limiter failed on, by entry point (on-internal-error says what they got)")
                .build();
        latency = meter.histogramBuilder("llm_ratelimit.decision.duration").setUnit("s")
                .setDescription("Time to decide one request, store round trip included")
                .setExplicitBucketBoundariesAdvice(LATENCY_BUCKETS).build();
        StoreOperation[] operations = StoreOperation.values();
        failureAttributes = new Attributes[operations.length];
        for (StoreOperation operation : operations) {
            failureAttributes[operation.ordinal()] = Attributes.of(OPERATION, operation.label());
        }
        gauges.add(meter.gaugeBuilder("llm_ratelimit.store.circuit.open").ofLongs()
                .setDescription("1 while the circuit keeps calls from the store, else 0").setUnit("1")
                .buildWithCallback(measurement -> {
                    for (Map.Entry<String, CircuitBreaker> circuit : health.circuits().entrySet()) {
                        measurement.record(circuit.getValue().isOpen() ? 1 : 0,
                                Attributes.of(AttributeKey.stringKey("circuit"), circuit.getKey()));
                    }
                }));
        health.compensations().ifPresent(this::observeCompensations);
        if (health.localDecisions().isPresent()) {
            gauges.add(meter.counterBuilder("llm_ratelimit.store.local_decisions").setUnit("{decision}")
                    .setDescription("Decisions made on this instance's share of every limit while the shared store did not answer")
                    .buildWithCallback(measurement -> measurement.record(health.localDecisions().orElse(0))));
        }
    }

    /** The queue of settlements a store did not confirm: how many wait, and what became of the others. */
    private void observeCompensations(PendingCompensations pending) {
        gauges.add(meter.gaugeBuilder("llm_ratelimit.store.compensations.pending").ofLongs().setUnit("{settlement}")
                .setDescription("Settlements and cancels waiting for the store to answer again")
                .buildWithCallback(measurement -> measurement.record(pending.size())));
        PendingCompensations.Fate[] fates = PendingCompensations.Fate.values();
        Attributes[] fateAttributes = new Attributes[fates.length];
        for (PendingCompensations.Fate fate : fates) {
            fateAttributes[fate.ordinal()] = Attributes.of(FATE, fate.name().toLowerCase(Locale.ROOT));
        }
        gauges.add(meter.counterBuilder("llm_ratelimit.store.compensations").setUnit("{settlement}")
                .setDescription("Unconfirmed settlements by fate: queued, applied, expired (lease over), dropped (queue full)")
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
        decisions.add(1, pool.decision(outcome, DecisionLabels.limitIndex(admission),
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
        spentOnBudgets(plan, usage);
    }

    /** The cost of an admitted response, once per budget scope that its plan counted it against. */
    private void spentOnBudgets(Plan plan, Usage usage) {
        EnumSet<BudgetScope> scopes = EnumSet.noneOf(BudgetScope.class);
        for (CounterGroup group : plan.groups()) {
            if (group.kind() == GroupKind.BUDGET) {
                scopes.add(BudgetExtension.scopeOf(group));
            }
        }
        if (scopes.isEmpty()) {
            return;
        }
        long cost = plan.cost().micros(usage);
        for (BudgetScope scope : scopes) {
            spent(scope.label(), plan.model(), cost);
        }
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
