package dev.llmratelimit.bench;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.CallerPlan;
import dev.llmratelimit.engine.DecisionObserver;
import dev.llmratelimit.observe.Metrics;
import dev.llmratelimit.observe.StoreHealth;
import dev.llmratelimit.observe.otel.OpenTelemetryTelemetry;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.identity.Caller;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.Policies;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One decision with the in-memory store, and what a Java user would wire by hand instead: two local
 * Bucket4j buckets (Bucket4j debits every bandwidth of a bucket by the same amount, so requests
 * and tokens need one bucket each). Limits are high enough that every decision admits.
 */
@State(Scope.Benchmark)
public class DecisionBenchmark {

    static final long RPM = 10_000_000_000L;
    static final long TPM = 50_000_000_000L;

    private RateLimiter limiter;
    private RateLimiter measured;
    private RateLimiter workConserving;
    private RateLimiter fiveLimits;
    private OpenTelemetrySdk sdk;
    private RateLimitRuntime withCallerLimits;
    private CallerPlan callerPlan;
    private RateLimiter callersLimiter;
    private Bucket requests;
    private Bucket tokens;

    @Setup
    public void setUp() {
        limiter = new RateLimiter(threePoolPolicy(), new MemoryAdmissionStore());
        workConserving = new RateLimiter(workConservingPolicy(), new MemoryAdmissionStore());
        fiveLimits = new RateLimiter(fiveLimitPolicy(), new MemoryAdmissionStore());
        // Metrics on: the OpenTelemetry SDK with a reader (so every measurement is aggregated), no span current.
        sdk = OpenTelemetrySdk.builder().setMeterProvider(SdkMeterProvider.builder()
                .registerMetricReader(InMemoryMetricReader.create()).build()).build();
        RateLimitPolicy policy = threePoolPolicy();
        StoreHealth health = new StoreHealth("memory", Map.of(), Clock.systemUTC());
        Metrics metrics = OpenTelemetryTelemetry.of(sdk).metrics(policy, health);
        measured = new RateLimiter(policy, new MemoryAdmissionStore(), Clock.systemUTC(), RateLimiter.DEFAULT_LEASE_MILLIS,
                List.of(), DecisionObserver.both(health, metrics));
        withCallerLimits = RateLimitRuntime.create(Policies.properties("models.gpt-4o.rpm=" + RPM,
                "models.gpt-4o.tpm=" + TPM, "reservation.prod=0.5", "reservation.dev=0.2", "window=60s",
                "principals.bench-key.team=bench-team", "principals.bench-key.rpm-limit=" + RPM,
                "principals.bench-key.max-parallel-requests=1000000", "teams.bench-team.tpm-limit=" + TPM), null);
        Caller caller = withCallerLimits.callerResolver().resolve(() -> "bench-key");
        callerPlan = withCallerLimits.callerLimits().planFor(caller);
        // the same engine as the first row (no observer), given the plan the runtime resolves for the key
        callersLimiter = new RateLimiter(threePoolPolicy(), new MemoryAdmissionStore());
        requests = Bucket.builder().addLimit(minuteLimit(RPM)).build();
        tokens = Bucket.builder().addLimit(minuteLimit(TPM)).build();
    }

    @TearDown
    public void tearDown() {
        sdk.close();
        withCallerLimits.close();
    }

    static RateLimitPolicy threePoolPolicy() {
        return Policies.policy("models.gpt-4o.rpm=" + RPM, "models.gpt-4o.tpm=" + TPM,
                "reservation.prod=0.5", "reservation.dev=0.2", "window=60s");
    }

    /** The same model and pools under {@code fairness=work-conserving}. */
    static RateLimitPolicy workConservingPolicy() {
        return Policies.policy("models.gpt-4o.rpm=" + RPM, "models.gpt-4o.tpm=" + TPM,
                "reservation.prod=0.5", "reservation.dev=0.2", "window=60s", "fairness=work-conserving");
    }

    /** The same model and pools with rpm, tpm, itpm, otpm and rpd: five limits over two windows (a minute, a day). */
    static RateLimitPolicy fiveLimitPolicy() {
        return Policies.policy("models.gpt-4o.rpm=" + RPM, "models.gpt-4o.tpm=" + TPM, "models.gpt-4o.itpm=" + TPM,
                "models.gpt-4o.otpm=" + TPM, "models.gpt-4o.rpd=" + RPM, "reservation.prod=0.5", "reservation.dev=0.2",
                "window=60s");
    }

    private static Bandwidth minuteLimit(long capacity) {
        return Bandwidth.builder().capacity(capacity).refillGreedy(capacity, Duration.ofMinutes(1)).build();
    }

    /**
     * One request's whole work in the engine: the decision and its settlement (here an abort, which
     * records nothing): a decision left unsettled would stay in the store's records, as no request's does.
     */
    @Benchmark
    public Admission rateLimiter() {
        Admission admission = limiter.admit(AdmissionRequest.of("gpt-4o", "prod", null));
        admission.abort();
        return admission;
    }

    /** The same under work-conserving fairness: which pools asked within the window is read and marked too. */
    @Benchmark
    public Admission rateLimiterWorkConserving() {
        Admission admission = workConserving.admit(AdmissionRequest.of("gpt-4o", "prod", null));
        admission.abort();
        return admission;
    }

    /** The same with rpm, tpm, itpm, otpm and rpd on the model: the day's model and pool groups too. */
    @Benchmark
    public Admission rateLimiterFiveLimits() {
        Admission admission = fiveLimits.admit(AdmissionRequest.of("gpt-4o", "prod", null));
        admission.abort();
        return admission;
    }

    /** The same with OpenTelemetry metrics on: the decision counter and the latency histogram. */
    @Benchmark
    public Admission rateLimiterWithMetrics() {
        Admission admission = measured.admit(AdmissionRequest.of("gpt-4o", "prod", null));
        admission.abort();
        return admission;
    }

    /**
     * The same decision with per-caller limits on (key: requests and parallel slots, team: tokens):
     * the caller acquisition, the decision, and giving the parallel slot back.
     */
    @Benchmark
    public Admission rateLimiterWithCallerLimits() {
        Admission admission = callersLimiter.admit(AdmissionRequest.of("gpt-4o", "prod", null).withCallers(callerPlan));
        admission.abort();
        return admission;
    }

    @Benchmark
    public boolean bucket4jTwoBuckets() {
        return requests.tryConsume(1) && tokens.tryConsume(1);
    }
}
