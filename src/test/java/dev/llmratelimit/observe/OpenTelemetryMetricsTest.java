package dev.llmratelimit.observe;

import dev.llmratelimit.budget.BudgetIdentity;
import dev.llmratelimit.budget.BudgetPolicy;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.BudgetExtension;
import dev.llmratelimit.engine.PromptTokens;
import dev.llmratelimit.engine.CallerCounter;
import dev.llmratelimit.engine.CallerPlan;
import dev.llmratelimit.engine.CallerScope;
import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.DecisionObserver;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.observe.otel.OpenTelemetryTelemetry;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.store.CompensatingAdmissionStore;
import dev.llmratelimit.store.PendingCompensations;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.testsupport.UnavailableAdmissionStore;
import dev.llmratelimit.usage.Usage;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.llmratelimit.observe.MetricPoints.attributes;
import static dev.llmratelimit.testsupport.Policies.policy;
import static dev.llmratelimit.testsupport.Admits.admit;
import static org.assertj.core.api.Assertions.assertThat;

/** The meters after a scripted load, read through the SDK's in-memory reader. */
class OpenTelemetryMetricsTest {

    private final MutableClock clock = new MutableClock();
    private final InMemoryMetricReader reader = InMemoryMetricReader.create();
    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build())
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
            .build();
    private final StoreHealth health = new StoreHealth("memory", Map.of(), clock);
    private Metrics metrics;

    private RateLimiter limiter(AdmissionStore store, String... lines) {
        RateLimitPolicy policy = policy(lines);
        metrics = OpenTelemetryTelemetry.of(sdk).metrics(policy, health);
        RateLimiter limiter = new RateLimiter(policy, store, clock, RateLimiter.DEFAULT_LEASE_MILLIS, List.of(),
                DecisionObserver.both(health, metrics));
        metrics.watch(limiter);
        return limiter;
    }

    @AfterEach
    void close() {
        if (metrics != null) {
            metrics.close();
        }
        sdk.close();
    }

    @Test
    void underWorkConservingFairnessTheGaugesShowWhichPoolsAreActiveAndTheirLimitsNow() {
        RateLimiter limiter = limiter(new MemoryAdmissionStore(clock), "models.m.rpm=20", "reservation.prod=0.5",
                "reservation.dev=0.25", "default-priority=0.25", "fairness=work-conserving");
        for (int i = 0; i < 3; i++) {
            admit(limiter, "m", "prod").abort();
        }

        MetricPoints points = MetricPoints.collect(reader);
        assertThat(points.longValue("llm_ratelimit.pool.active", attributes("model", "m", "pool", "prod"))).isEqualTo(1);
        assertThat(points.longValue("llm_ratelimit.pool.active", attributes("model", "m", "pool", "dev"))).isEqualTo(0);
        assertThat(points.longValue("llm_ratelimit.pool.active", attributes("model", "m", "pool", "default"))).isEqualTo(0);
        // prod alone holds the whole model; each idle pool would get its share among itself and prod
        assertThat(points.longValue("llm_ratelimit.pool.requests.limit", attributes("model", "m", "pool", "prod"))).isEqualTo(20);
        assertThat(points.longValue("llm_ratelimit.pool.requests.limit", attributes("model", "m", "pool", "dev"))).isEqualTo(6);

        clock.advance(Duration.ofSeconds(60));
        points = MetricPoints.collect(reader);
        assertThat(points.longValue("llm_ratelimit.pool.active", attributes("model", "m", "pool", "prod"))).isEqualTo(0);
    }

    @Test
    void decisionsTokensAndGaugesAfterAScriptedLoad() {
        // m: 10 requests, 1000 tokens; prod keeps 50 %, the default pool 25 % (2 requests, 250 tokens in strict mode).
        RateLimiter limiter = limiter(new MemoryAdmissionStore(clock), "models.m.rpm=10", "models.m.tpm=1000",
                "reservation.prod=0.5");
        List<Admission> admitted = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            admitted.add(admit(limiter, "m", null));             // saturation 0.0, 0.1, 0.2: generous
        }
        admitted.add(admit(limiter, "m", "prod"));               // 0.3
        admitted.add(admit(limiter, "m", "prod"));               // 0.4
        Admission refused = admit(limiter, "m", null);           // 0.5: strict, the default pool holds 3 of 2
        admitted.add(admit(limiter, "m", "prod"));               // strict, prod holds 2 of 5
        admit(limiter, "gpt-unknown-" + System.nanoTime(), "prod"); // not configured: passes, counted as unconfigured
        assertThat(refused.outcome()).isEqualTo(Admission.Outcome.REFUSED);
        assertThat(admitted).allMatch(admission -> admission.outcome() == Admission.Outcome.ADMITTED);
        for (Admission admission : admitted) {
            admission.complete(new Usage(100, 20, 0));
        }
        refused.complete(new Usage(100, 20, 0));                  // refused: records nothing
        clock.advance(Duration.ofSeconds(15));

        MetricPoints points = MetricPoints.collect(reader);
        String decisions = "llm_ratelimit.decisions";
        assertThat(points.longValue(decisions, decision("m", "default", "admitted", "none", "generous", false))).isEqualTo(3);
        assertThat(points.longValue(decisions, decision("m", "prod", "admitted", "none", "generous", false))).isEqualTo(2);
        assertThat(points.longValue(decisions, decision("m", "default", "refused", "pool_requests", "strict", false))).isEqualTo(1);
        assertThat(points.longValue(decisions, decision("m", "prod", "admitted", "none", "strict", false))).isEqualTo(1);
        assertThat(points.longValue(decisions, decision("unconfigured", "none", "unlimited", "none", "none", false))).isEqualTo(1);
        assertThat(points.longTotal(decisions)).isEqualTo(8);
        assertThat(points.pointCount(decisions)).isEqualTo(5);

        assertThat(points.longValue("llm_ratelimit.tokens", attributes("model", "m", "pool", "default", "type", "input"))).isEqualTo(300);
        assertThat(points.longValue("llm_ratelimit.tokens", attributes("model", "m", "pool", "default", "type", "output"))).isEqualTo(60);
        assertThat(points.longValue("llm_ratelimit.tokens", attributes("model", "m", "pool", "prod", "type", "input"))).isEqualTo(300);
        assertThat(points.longValue("llm_ratelimit.tokens", attributes("model", "m", "pool", "prod", "type", "output"))).isEqualTo(60);

        // Gauges from the store: 6 requests, 720 tokens recorded: saturation max(0.6, 0.72).
        assertThat(points.doubleGauge("llm_ratelimit.model.saturation.ratio", attributes("model", "m"))).isEqualTo(0.72);
        assertThat(points.longValue("llm_ratelimit.model.strict", attributes("model", "m"))).isEqualTo(1);
        assertThat(points.doubleGauge("llm_ratelimit.window.remaining", attributes("model", "m"))).isEqualTo(45.0);
        assertThat(points.longValue("llm_ratelimit.pool.requests", attributes("model", "m", "pool", "default"))).isEqualTo(3);
        assertThat(points.longValue("llm_ratelimit.pool.requests", attributes("model", "m", "pool", "prod"))).isEqualTo(3);
        assertThat(points.longValue("llm_ratelimit.pool.tokens", attributes("model", "m", "pool", "default"))).isEqualTo(360);
        assertThat(points.longValue("llm_ratelimit.pool.tokens", attributes("model", "m", "pool", "prod"))).isEqualTo(360);
        assertThat(points.longValue("llm_ratelimit.pool.requests.limit", attributes("model", "m", "pool", "default"))).isEqualTo(2);
        assertThat(points.longValue("llm_ratelimit.pool.requests.limit", attributes("model", "m", "pool", "prod"))).isEqualTo(5);
        assertThat(points.longValue("llm_ratelimit.pool.tokens.limit", attributes("model", "m", "pool", "default"))).isEqualTo(250);
        assertThat(points.longValue("llm_ratelimit.pool.tokens.limit", attributes("model", "m", "pool", "prod"))).isEqualTo(500);

        String latency = "llm_ratelimit.decision.duration";
        assertThat(points.metric(latency).getUnit()).isEqualTo("s");
        assertThat(points.histogramCount(latency, attributes("model", "m", "outcome", "admitted"))).isEqualTo(6);
        assertThat(points.histogramCount(latency, attributes("model", "m", "outcome", "refused"))).isEqualTo(1);
        assertThat(points.histogramCount(latency, attributes("model", "unconfigured", "outcome", "unlimited"))).isEqualTo(1);
    }

    @Test
    void everyLimitOfEveryWindowHasItsGaugesAndTheSaturationIsTheMostUsed() {
        RateLimiter limiter = limiter(new MemoryAdmissionStore(clock), "models.m.itpm=1000", "models.m.otpm=100",
                "models.m.rpd=50", "reservation.prod=0.5");
        for (String pool : new String[] {null, "prod", "prod"}) {
            Admission admission = admit(limiter, "m", pool);
            assertThat(admission.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
            admission.complete(new Usage(100, 20, 0));
        }

        MetricPoints points = MetricPoints.collect(reader);
        // output tokens per minute: 60 of 100 (input 300 of 1000, requests per day 3 of 50)
        assertThat(points.doubleGauge("llm_ratelimit.model.saturation.ratio", attributes("model", "m"))).isEqualTo(0.6);
        String used = "llm_ratelimit.limit.used";
        String capacity = "llm_ratelimit.limit.capacity";
        assertThat(points.longValue(used, attributes("model", "m", "dimension", "input-tokens", "window", "1m"))).isEqualTo(300);
        assertThat(points.longValue(capacity, attributes("model", "m", "dimension", "input-tokens", "window", "1m"))).isEqualTo(1000);
        assertThat(points.longValue(used, attributes("model", "m", "dimension", "output-tokens", "window", "1m"))).isEqualTo(60);
        assertThat(points.longValue(used, attributes("model", "m", "dimension", "requests", "window", "1d"))).isEqualTo(3);
        assertThat(points.longValue(capacity, attributes("model", "m", "dimension", "requests", "window", "1d"))).isEqualTo(50);
        assertThat(points.longValue(used, attributes("model", "m", "pool", "prod", "dimension", "output-tokens", "window", "1m")))
                .isEqualTo(40);
        assertThat(points.longValue(capacity, attributes("model", "m", "pool", "prod", "dimension", "output-tokens", "window", "1m")))
                .isEqualTo(50);
        assertThat(points.longValue(used, attributes("model", "m", "pool", "default", "dimension", "requests", "window", "1d")))
                .isEqualTo(1);
        assertThat(points.longValue(capacity, attributes("model", "m", "pool", "default", "dimension", "requests", "window", "1d")))
                .isEqualTo(12);
        assertThat(points.pointCount(used)).isEqualTo(9);           // 3 limits, each for the model and 2 pools
    }

    @Test
    void shadowDecisionsAreToldApartAndCallerLimitsNamed() {
        RateLimiter limiter = limiter(new MemoryAdmissionStore(clock), "models.m.rpm=2", "mode=shadow");
        CallerPlan key = new CallerPlan(List.of(new CallerCounter(CallerScope.KEY, "sk-1", 0, 0, 1)), 60_000, 600_000);
        Admission holding = admit(limiter, "m", null, null, key);         // holds the key's one parallel slot
        Admission parallel = admit(limiter, "m", null, null, key);        // refused by the key's parallel limit
        admit(limiter, "m", null);
        Admission overLimit = admit(limiter, "m", null);                  // model_requests: would refuse
        assertThat(parallel.permitsCall()).isTrue();
        assertThat(overLimit.permitsCall()).isTrue();
        holding.abort();

        MetricPoints points = MetricPoints.collect(reader);
        String decisions = "llm_ratelimit.decisions";
        assertThat(points.longValue(decisions, decision("m", "default", "admitted", "none", "generous", true))).isEqualTo(2);
        assertThat(points.longValue(decisions, decision("m", "default", "refused", "key_parallel_requests", "generous", true))).isEqualTo(1);
        assertThat(points.longValue(decisions, decision("m", "default", "refused", "model_requests", "generous", true))).isEqualTo(1);
        assertThat(points.longTotal(decisions)).isEqualTo(4);
    }

    @Test
    void aRefusalByALimitOfAFurtherWindowNamesTheWindow() {
        RateLimiter limiter = limiter(new MemoryAdmissionStore(clock), "models.m.rpm=2", "models.m.rpd=3");
        admit(limiter, "m", null);
        admit(limiter, "m", null);
        admit(limiter, "m", null);                                        // the minute's 2 are used
        clock.advance(Duration.ofMinutes(1));
        admit(limiter, "m", null);
        admit(limiter, "m", null);                                        // the day's 3 are used

        MetricPoints points = MetricPoints.collect(reader);
        String decisions = "llm_ratelimit.decisions";
        assertThat(points.longValue(decisions, decision("m", "default", "refused", "model_requests", "generous", false))).isEqualTo(1);
        assertThat(points.longValue(decisions, decision("m", "default", "refused", "model_requests_1d", "generous", false))).isEqualTo(1);
        assertThat(points.longValue(decisions, decision("m", "default", "admitted", "none", "generous", false))).isEqualTo(3);
    }

    @Test
    void decisionsWithoutAnswerAreCountedAsPendingCompensations() {
        PendingCompensations pending = new PendingCompensations(2);
        StoreHealth withQueue = new StoreHealth("redis", Map.of(), pending, clock);
        RateLimitPolicy policy = policy("models.m.rpm=10", "on-store-failure=fail-closed");
        metrics = OpenTelemetryTelemetry.of(sdk).metrics(policy, withQueue);
        RateLimiter limiter = new RateLimiter(policy,
                new CompensatingAdmissionStore(new UnavailableAdmissionStore(), pending, clock), clock,
                RateLimiter.DEFAULT_LEASE_MILLIS, List.of(), DecisionObserver.both(withQueue, metrics));
        for (int i = 0; i < 3; i++) {
            assertThat(admit(limiter, "m", null).outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_CLOSED);
        }
        MetricPoints points = MetricPoints.collect(reader);
        // Three refused decisions may still run on the store: three cancels queued, the oldest dropped by the bound of 2.
        assertThat(points.longValue("llm_ratelimit.store.compensations.pending", Attributes.empty())).isEqualTo(2);
        assertThat(points.longValue("llm_ratelimit.store.compensations", attributes("fate", "queued"))).isEqualTo(3);
        assertThat(points.longValue("llm_ratelimit.store.compensations", attributes("fate", "dropped"))).isEqualTo(1);
        assertThat(points.longValue("llm_ratelimit.store.compensations", attributes("fate", "applied"))).isZero();
    }

    @Test
    void storeFailuresAreCountedByOperation() {
        RateLimiter limiter = limiter(new UnavailableAdmissionStore(), "models.m.rpm=10", "models.m.tpm=100");
        for (int i = 0; i < 3; i++) {
            assertThat(admit(limiter, "m", null).outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_OPEN);
        }
        MetricPoints points = MetricPoints.collect(reader);
        assertThat(points.longValue("llm_ratelimit.decisions",
                decision("m", "default", "store_failed_open", "none", "none", false))).isEqualTo(3);
        assertThat(points.longValue("llm_ratelimit.store.failures", attributes("operation", "decide"))).isEqualTo(3);
        // The gauges' snapshot failed too (this store takes none): counted, and no saturation reported.
        assertThat(points.longValue("llm_ratelimit.store.failures", attributes("operation", "snapshot"))).isEqualTo(1);
        assertThat(health.failures(DecisionObserver.StoreOperation.DECIDE)).isEqualTo(3);
    }

    @Test
    void theCurrentSpanGetsOutcomePoolAndSaturation() {
        RateLimiter limiter = limiter(new MemoryAdmissionStore(clock), "models.m.rpm=4", "reservation.prod=0.5");
        admit(limiter, "m", "prod");
        Span span = sdk.getTracer("test").spanBuilder("chat").startSpan();
        try (Scope ignored = span.makeCurrent()) {
            admit(limiter, "m", "prod");
        } finally {
            span.end();
        }
        admit(limiter, "m", "prod");                                     // no span current: nothing to add to

        List<SpanData> finished = spans.getFinishedSpanItems();
        assertThat(finished).hasSize(1);
        var spanAttributes = finished.get(0).getAttributes();
        assertThat(spanAttributes.get(AttributeKey.stringKey("llm_ratelimit.outcome"))).isEqualTo("admitted");
        assertThat(spanAttributes.get(AttributeKey.stringKey("llm_ratelimit.model"))).isEqualTo("m");
        assertThat(spanAttributes.get(AttributeKey.stringKey("llm_ratelimit.pool"))).isEqualTo("prod");
        assertThat(spanAttributes.get(AttributeKey.doubleKey("llm_ratelimit.saturation"))).isEqualTo(0.25);
        assertThat(spanAttributes.get(AttributeKey.booleanKey("llm_ratelimit.shadow"))).isFalse();
    }

    @Test
    void theCostOfASettledResponseIsSpendOncePerBudgetScope() {
        Map<String, String> props = dev.llmratelimit.testsupport.Policies.properties("models.m.rpm=100",
                "prices.m.input=1.00", "prices.m.output=2.00", "teams.team-a.budget=10", "principals.alice-key.budget=5",
                "teams.team-a.soft-budget=8");
        RateLimitPolicy policy = PolicyParser.parse(props);
        metrics = OpenTelemetryTelemetry.of(sdk).metrics(policy, health);
        RateLimiter limiter = new RateLimiter(policy, new MemoryAdmissionStore(clock), clock, RateLimiter.DEFAULT_LEASE_MILLIS,
                List.of(new BudgetExtension(BudgetPolicy.parse(props), clock)), DecisionObserver.both(health, metrics));
        BudgetIdentity alice = new BudgetIdentity("alice-key", "alice", "team-a");
        limiter.admit(AdmissionRequest.of("m", null, null).withIdentity(alice).withTokens(PromptTokens.known(100), 50))
                .complete(new Usage(100, 50, 0));                   // 100 x 1 + 50 x 2 = 200 micro-dollars
        limiter.admit(AdmissionRequest.of("m", null, null).withIdentity(alice).withTokens(PromptTokens.known(100), 50))
                .abort();                                           // a failed call costs nothing
        limiter.admit(AdmissionRequest.of("m", null, null).withTokens(PromptTokens.known(100), 50))
                .complete(new Usage(100, 50, 0));                   // anonymous: no budget, no spend
        MetricPoints points = MetricPoints.collect(reader);
        assertThat(points.longValue("llm_ratelimit.spend", attributes("scope", "team", "model", "m"))).isEqualTo(200);
        assertThat(points.longValue("llm_ratelimit.spend", attributes("scope", "key", "model", "m"))).isEqualTo(200);
        assertThat(points.longTotal("llm_ratelimit.spend")).isEqualTo(400);
    }

    @Test
    void aSoftBudgetReachedIsCountedOncePerPeriod() {
        Map<String, String> props = dev.llmratelimit.testsupport.Policies.properties("models.m.rpm=100",
                "prices.m.input=1.00", "prices.m.output=2.00", "teams.team-a.soft-budget=0.0005", "budget.period=PT1H",
                "budget.anchor=" + clock.instant());
        RateLimitPolicy policy = PolicyParser.parse(props);
        metrics = OpenTelemetryTelemetry.of(sdk).metrics(policy, health);
        RateLimiter limiter = new RateLimiter(policy, new MemoryAdmissionStore(clock), clock, RateLimiter.DEFAULT_LEASE_MILLIS,
                List.of(new BudgetExtension(BudgetPolicy.parse(props), clock)),
                DecisionObserver.both(metrics, new SoftBudgetWarnings(metrics, clock)));
        BudgetIdentity alice = new BudgetIdentity("alice-key", "alice", "team-a");
        List<Boolean> reached = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Admission admission = limiter.admit(AdmissionRequest.of("m", null, null).withIdentity(alice)
                    .withTokens(PromptTokens.known(100), 50));
            reached.add(admission.verdict().budget().softReached() >= 0);
            admission.complete(new Usage(100, 50, 0));              // 200 micro-dollars each, never refused
        }
        assertThat(reached).containsExactly(false, false, true, true, true);
        clock.advance(Duration.ofHours(1));                          // the next period: reached again after 600
        for (int i = 0; i < 3; i++) {
            limiter.admit(AdmissionRequest.of("m", null, null).withIdentity(alice).withTokens(PromptTokens.known(100), 50))
                    .complete(new Usage(100, 50, 0));
        }
        MetricPoints points = MetricPoints.collect(reader);
        assertThat(points.longValue("llm_ratelimit.budget.soft_reached", attributes("scope", "team"))).isEqualTo(2);
    }

    @Test
    void spendIsCountedInMicroDollarsUnderConfiguredModelsOnly() {
        limiter(new MemoryAdmissionStore(clock), "models.m.rpm=4");
        metrics.spent("team", "m", 2_500);
        metrics.spent("team", "m", 1);
        metrics.spent("team", "not-configured", 700);
        metrics.spent("galaxy", "m", 5);

        MetricPoints points = MetricPoints.collect(reader);
        assertThat(points.longValue("llm_ratelimit.spend", attributes("scope", "team", "model", "m"))).isEqualTo(2_501);
        assertThat(points.longValue("llm_ratelimit.spend", attributes("scope", "team", "model", "unconfigured"))).isEqualTo(700);
        assertThat(points.longValue("llm_ratelimit.spend", attributes("scope", "other", "model", "m"))).isEqualTo(5);
    }

    private static io.opentelemetry.api.common.Attributes decision(String model, String pool, String outcome,
                                                                   String limit, String mode, boolean shadow) {
        return attributes("model", model, "pool", pool, "outcome", outcome, "limit", limit, "mode", mode, "shadow", shadow);
    }
}
