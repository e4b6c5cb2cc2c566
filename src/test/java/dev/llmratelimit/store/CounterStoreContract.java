package dev.llmratelimit.store;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.CounterStore;
import dev.llmratelimit.engine.Limit;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The behaviour every {@link CounterStore} must show (SPEC sections 2, 3 and 8), driven through the
 * engine. Each store's test class extends this one.
 */
public abstract class CounterStoreContract {

    private final List<CounterStore> stores = new ArrayList<>();

    /** A fresh, empty store. */
    protected abstract CounterStore createStore();

    /** A window short enough that {@link #passWindow} can wait it out (real-time stores sleep). */
    protected abstract String rollingWindow();

    /** Lets the given window end: moves the clock, or sleeps past it. */
    protected abstract void passWindow(Duration window) throws InterruptedException;

    protected RateLimiter limiter(String... lines) {
        CounterStore store = createStore();
        stores.add(store);
        return new RateLimiter(policy(lines), store);
    }

    @AfterEach
    void closeStores() {
        stores.forEach(CounterStore::close);
    }

    private static Verdict decide(RateLimiter limiter, String model, String priority) {
        return limiter.admit(model, priority).verdict();
    }

    /** Admits with the given priority until refused; returns how many were admitted. */
    private static int admitUntilRefused(RateLimiter limiter, String model, String priority, int atMost) {
        for (int admitted = 0; admitted < atMost; admitted++) {
            if (!decide(limiter, model, priority).admitted()) {
                return admitted;
            }
        }
        return atMost;
    }

    private static void use(RateLimiter limiter, String model, String priority, long tokens) {
        Admission admission = limiter.admit(model, priority);
        assertThat(admission.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        admission.complete(new Usage(tokens, 0, 0));
    }

    @Test
    void idleCapacityAdmitsExactlyRpmThenAgainAfterTheWindow() throws InterruptedException {
        RateLimiter limiter = limiter("models.m.rpm=100", "window=" + rollingWindow());

        assertThat(admitUntilRefused(limiter, "m", null, 1000)).isEqualTo(100);
        Verdict refused = decide(limiter, "m", null);
        assertThat(refused.refusedBy()).isEqualTo(Limit.MODEL_REQUESTS);
        assertThat(refused.requestLimit()).isEqualTo(100);
        assertThat(refused.requestRemaining()).isZero();

        passWindow(limiter.policy().window());
        assertThat(admitUntilRefused(limiter, "m", null, 1000)).isEqualTo(100);
    }

    /** Admits requests that each use {@code tokens} until one is refused; returns how many were admitted. */
    private static int useUntilRefused(RateLimiter limiter, String model, String priority, long tokens, int atMost) {
        for (int admitted = 0; admitted < atMost; admitted++) {
            Admission admission = limiter.admit(model, priority);
            if (admission.outcome() != Admission.Outcome.ADMITTED) {
                return admitted;
            }
            admission.complete(new Usage(tokens, 0, 0));
        }
        return atMost;
    }

    @Test
    void weightsAreHonouredInStrictMode() {
        RateLimiter limiter = limiter("models.m.tpm=1000", "reservation.high=0.9", "reservation.low=0.1");

        assertThat(useUntilRefused(limiter, "m", "high", 10, 50)).isEqualTo(50);   // saturation 0.5: strict
        assertThat(useUntilRefused(limiter, "m", "high", 10, 1000)).isEqualTo(40); // held at 900, not 500
        Verdict high = decide(limiter, "m", "high");
        assertThat(high.refusedBy()).isEqualTo(Limit.POOL_TOKENS);
        assertThat(high.tokenLimit()).isEqualTo(900);
        assertThat(high.tokenRemaining()).isZero();

        assertThat(useUntilRefused(limiter, "m", "low", 10, 1000)).isEqualTo(10);  // held at 100
        assertThat(decide(limiter, "m", "low").refusedBy()).isEqualTo(Limit.MODEL_TOKENS);
    }

    @Test
    void callersWithoutPriorityShareOneDefaultPool() {
        RateLimiter limiter = limiter("models.m.rpm=100", "reservation.prod=0.5",
                "default-priority=0.25", "saturation-threshold=0");
        int admitted = 0;
        for (int i = 0; i < 100; i++) {
            String caller = i % 2 == 0 ? null : "not-configured";
            if (decide(limiter, "m", caller).admitted()) {
                admitted++;
            }
        }
        assertThat(admitted).isEqualTo(25);
        assertThat(admitUntilRefused(limiter, "m", "prod", 1000)).isEqualTo(50);
    }

    @Test
    void defaultShareZeroGetsNothingOnceSaturated() {
        RateLimiter limiter = limiter("models.m.rpm=100", "reservation.prod=0.5", "default-priority=0");

        assertThat(admitUntilRefused(limiter, "m", null, 1000)).isEqualTo(50);     // generous below 0.5
        Verdict refused = decide(limiter, "m", "unknown");
        assertThat(refused.refusedBy()).isEqualTo(Limit.POOL_REQUESTS);
        assertThat(refused.requestLimit()).isZero();
        assertThat(admitUntilRefused(limiter, "m", "prod", 1000)).isEqualTo(50);
    }

    @Test
    void withoutReservationsOnlyModelLimitsApply() {
        RateLimiter limiter = limiter("models.m.rpm=100", "default-priority=0.25");

        assertThat(admitUntilRefused(limiter, "m", null, 1000)).isEqualTo(100);
        assertThat(decide(limiter, "m", null).refusedBy()).isEqualTo(Limit.MODEL_REQUESTS);
    }

    @Test
    void oversubscribedSharesAreNormalised() {
        RateLimiter limiter = limiter("models.m.rpm=100", "reservation.a=0.6", "reservation.b=0.8",
                "saturation-threshold=0");

        assertThat(admitUntilRefused(limiter, "m", "a", 1000)).isEqualTo(42);      // 100 * 0.6 / 1.4 = 42.86
        assertThat(admitUntilRefused(limiter, "m", "b", 1000)).isEqualTo(57);      // 100 * 0.8 / 1.4 = 57.14
    }

    @Test
    void poolIsEnforcedFromTheThresholdOn() {
        RateLimiter limiter = limiter("models.m.rpm=10", "reservation.prod=0.9", "reservation.dev=0.1",
                "saturation-threshold=0.5");

        assertThat(admitUntilRefused(limiter, "m", "dev", 100)).isEqualTo(5);
        Verdict dev = decide(limiter, "m", "dev");
        assertThat(dev.refusedBy()).isEqualTo(Limit.POOL_REQUESTS);
        assertThat(dev.strict()).isTrue();
        assertThat(dev.saturation()).isEqualTo(0.5);
        assertThat(dev.requestLimit()).isEqualTo(1);

        assertThat(admitUntilRefused(limiter, "m", "prod", 100)).isEqualTo(5);
        assertThat(decide(limiter, "m", "prod").refusedBy()).isEqualTo(Limit.MODEL_REQUESTS);
    }

    @Test
    void tokenOnlyModelEnforcesRecordedTokensModelWideAndPerPool() {
        RateLimiter limiter = limiter("models.m.tpm=100", "reservation.prod=0.8", "reservation.dev=0.2");

        assertThat(useUntilRefused(limiter, "m", "dev", 10, 5)).isEqualTo(5);       // 50 tokens, generous
        Verdict dev = decide(limiter, "m", "dev");                                   // strict now: 50 >= 20
        assertThat(dev.refusedBy()).isEqualTo(Limit.POOL_TOKENS);
        assertThat(dev.tokenLimit()).isEqualTo(20);
        assertThat(dev.requestLimit()).isEqualTo(-1);

        assertThat(useUntilRefused(limiter, "m", "prod", 25, 100)).isEqualTo(2);    // 50 + 50 = 100
        Verdict model = decide(limiter, "m", "prod");
        assertThat(model.refusedBy()).isEqualTo(Limit.MODEL_TOKENS);
        assertThat(model.tokenLimit()).isEqualTo(100);
        assertThat(model.tokenRemaining()).isZero();
    }

    @Test
    void aRefusalChangesNoCounter() {
        RateLimiter limiter = limiter("models.m.rpm=20", "models.m.tpm=1000",
                "reservation.prod=0.9", "reservation.dev=0.1", "saturation-threshold=0.2");
        assertThat(admitUntilRefused(limiter, "m", "dev", 100)).isEqualTo(4);       // 4/20 = 0.2: strict
        for (int i = 0; i < 50; i++) {
            assertThat(decide(limiter, "m", "dev").refusedBy()).isEqualTo(Limit.POOL_REQUESTS);
        }
        Verdict prod = decide(limiter, "m", "prod");
        assertThat(prod.admitted()).isTrue();
        assertThat(prod.requestLimit()).isEqualTo(20);
        assertThat(prod.requestRemaining()).isEqualTo(15);                           // model still at 4 before it
        assertThat(admitUntilRefused(limiter, "m", "prod", 100)).isEqualTo(15);
        assertThat(decide(limiter, "m", "prod").refusedBy()).isEqualTo(Limit.MODEL_REQUESTS);
    }

    @Test
    void admittedVerdictReportsTheTightestLimit() {
        RateLimiter limiter = limiter("models.m.rpm=100", "models.m.tpm=1000",
                "reservation.prod=0.3", "saturation-threshold=0");

        Verdict first = decide(limiter, "m", "prod");
        assertThat(first.requestLimit()).isEqualTo(30);
        assertThat(first.requestRemaining()).isEqualTo(29);
        assertThat(first.tokenLimit()).isEqualTo(300);
        assertThat(first.tokenRemaining()).isEqualTo(300);
        assertThat(first.resetMillis()).isPositive().isLessThanOrEqualTo(60_000);
    }

    @Test
    void manyThreadsAdmitExactlyTheLimit() throws Exception {
        RateLimiter limiter = limiter("models.m.rpm=500", "reservation.prod=0.5", "reservation.dev=0.5");
        List<Integer> admittedPerThread = runConcurrently(64, thread -> {
            int admitted = 0;
            for (int i = 0; i < 20; i++) {
                if (decide(limiter, "m", thread % 2 == 0 ? "prod" : "dev").admitted()) {
                    admitted++;
                }
            }
            return admitted;
        });
        assertThat(admittedPerThread.stream().mapToInt(Integer::intValue).sum()).isEqualTo(500);
    }

    @Test
    void manyThreadsRecordingLoseNoToken() throws Exception {
        RateLimiter limiter = limiter("models.m.tpm=10000000");
        runConcurrently(64, thread -> {
            for (int i = 0; i < 50; i++) {
                limiter.admit("m", null).complete(new Usage(7, 0, 0));
            }
            return 0;
        });
        assertThat(decide(limiter, "m", null).tokenRemaining()).isEqualTo(10_000_000 - 64 * 50 * 7);
    }

    @Test
    void recordingCountsIntoTheLiveWindowWithoutExtendingIt() throws InterruptedException {
        RateLimiter limiter = limiter("models.m.tpm=100", "models.m.rpm=1000", "window=" + rollingWindow());
        Admission first = limiter.admit("m", null);
        first.complete(new Usage(100, 0, 0));
        assertThat(decide(limiter, "m", null).refusedBy()).isEqualTo(Limit.MODEL_TOKENS);

        passWindow(limiter.policy().window());
        Verdict fresh = decide(limiter, "m", null);
        assertThat(fresh.admitted()).isTrue();
        assertThat(fresh.tokenRemaining()).isEqualTo(100);
        assertThat(fresh.requestRemaining()).isEqualTo(999);
    }

    @Test
    void unconfiguredModelsAreNotCounted() {
        RateLimiter limiter = limiter("models.m.rpm=1");
        for (int i = 0; i < 10; i++) {
            assertThat(limiter.admit("other", "prod").outcome()).isEqualTo(Admission.Outcome.UNLIMITED);
        }
        assertThat(decide(limiter, "m", null).admitted()).isTrue();
    }

    private static <T> List<T> runConcurrently(int threads, ThreadTask<T> task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit((Callable<T>) () -> {
                    start.await();
                    return task.run(thread);
                }));
            }
            start.countDown();
            List<T> results = new ArrayList<>();
            for (Future<T> future : futures) {
                results.add(future.get(60, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    @FunctionalInterface
    private interface ThreadTask<T> {
        T run(int thread) throws Exception;
    }
}
