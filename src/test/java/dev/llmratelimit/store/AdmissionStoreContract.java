package dev.llmratelimit.store;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.CallerCounter;
import dev.llmratelimit.engine.CallerPlan;
import dev.llmratelimit.engine.CallerScope;
import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.Enforcement;
import dev.llmratelimit.engine.GroupKind;
import dev.llmratelimit.engine.GroupWindow;
import dev.llmratelimit.engine.Increments;
import dev.llmratelimit.engine.Limit;
import dev.llmratelimit.engine.Limits;
import dev.llmratelimit.engine.ModelCounters;
import dev.llmratelimit.engine.ModelGroups;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.RateLimit;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.engine.Refusal;
import dev.llmratelimit.engine.Settlement;
import dev.llmratelimit.engine.UsageCost;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.engine.WindowCounters;
import dev.llmratelimit.policy.Durations;
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

import static dev.llmratelimit.testsupport.Admits.admit;
import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The behaviour every {@link AdmissionStore} must show (docs/admission.md, docs/redis.md): model and
 * pool limits, per-caller limits, and both in one plan, driven through the engine. Each store's
 * test class extends this one.
 */
public abstract class AdmissionStoreContract {

    private final List<AdmissionStore> stores = new ArrayList<>();

    /** A fresh, empty store. */
    protected abstract AdmissionStore createStore();

    /** A parallel-slot lease short enough for {@link #pass} to wait out. */
    protected abstract Duration lease();

    /** A window short enough that {@link #passWindow} can wait it out (real-time stores sleep). */
    protected abstract String rollingWindow();

    /** Lets the given window end: moves the clock, or sleeps past it. */
    protected abstract void passWindow(Duration window) throws InterruptedException;

    /** Lets the given time pass: moves the clock, or sleeps. */
    protected abstract void pass(Duration duration) throws InterruptedException;

    protected RateLimiter limiter(String... lines) {
        return new RateLimiter(policy(lines), newStore());
    }

    private AdmissionStore newStore() {
        AdmissionStore store = createStore();
        stores.add(store);
        return store;
    }

    @AfterEach
    void closeStores() {
        stores.forEach(AdmissionStore::close);
    }

    private static Verdict decide(RateLimiter limiter, String model, String priority) {
        return admit(limiter, model, priority).verdict();
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
        use(limiter, model, priority, new Usage(tokens, 0, 0));
    }

    private static void use(RateLimiter limiter, String model, String priority, Usage usage) {
        Admission admission = admit(limiter, model, priority);
        assertThat(admission.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        admission.complete(usage);
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
            Admission admission = admit(limiter, model, priority);
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
                admit(limiter, "m", null).complete(new Usage(7, 0, 0));
            }
            return 0;
        });
        assertThat(decide(limiter, "m", null).tokenRemaining()).isEqualTo(10_000_000 - 64 * 50 * 7);
    }

    @Test
    void manyThreadsOverAMinuteAndADayCountEachRequestAndTokenOnce() throws Exception {
        RateLimiter limiter = limiter("models.m.rpm=1000000", "models.m.tpm=100000000", "models.m.rpd=1000000",
                "models.m.tpd=100000000", "reservation.prod=0.5");
        runConcurrently(32, thread -> {
            for (int i = 0; i < 25; i++) {
                Admission admission = admit(limiter, "m", thread % 2 == 0 ? "prod" : null);
                if (i % 2 == 0) {
                    admission.abort();
                } else {
                    admission.complete(new Usage(7, 0, 0));
                }
                admission.complete(new Usage(1000, 0, 0));      // finished already: changes nothing
            }
            return 0;
        });
        ModelCounters counters = limiter.snapshot("m");
        for (int window = 0; window < 2; window++) {
            assertThat(counters.window(window).of(Dimension.REQUESTS)).isEqualTo(32 * 25);
            assertThat(counters.window(window).of(Dimension.TOKENS)).isEqualTo(32 * 12 * 7);
            assertThat(counters.window(window).pool(1, Dimension.REQUESTS)).isEqualTo(16 * 25);   // prod
            assertThat(counters.window(window).pool(1, Dimension.TOKENS)).isEqualTo(16 * 12 * 7);
        }
    }

    @Test
    void recordingCountsIntoTheLiveWindowWithoutExtendingIt() throws InterruptedException {
        RateLimiter limiter = limiter("models.m.tpm=100", "models.m.rpm=1000", "window=" + rollingWindow());
        Admission first = admit(limiter, "m", null);
        first.complete(new Usage(100, 0, 0));
        assertThat(decide(limiter, "m", null).refusedBy()).isEqualTo(Limit.MODEL_TOKENS);

        passWindow(limiter.policy().window());
        Verdict fresh = decide(limiter, "m", null);
        assertThat(fresh.admitted()).isTrue();
        assertThat(fresh.tokenRemaining()).isEqualTo(100);
        assertThat(fresh.requestRemaining()).isEqualTo(999);
    }

    @Test
    void aSettlementFromBeforeAReloadStartsNoWindowOfTheOldLength() throws InterruptedException {
        AdmissionStore store = newStore();
        RateLimiter before = new RateLimiter(policy("models.m.tpm=100", "window=" + rollingWindow()), store);
        RateLimiter after = new RateLimiter(policy("models.m.tpm=100", "window=1h"), store);
        Admission inFlight = admit(before, "m", null);
        passWindow(before.policy().window());              // the old window ends while the request runs
        inFlight.complete(new Usage(10, 0, 0));            // recorded into a window it has to start
        use(after, "m", null, 90);
        assertThat(decide(after, "m", null).refusedBy()).isEqualTo(Limit.MODEL_TOKENS);

        passWindow(before.policy().window());              // the old length has passed again, the hour has not
        Verdict refused = decide(after, "m", null);
        assertThat(refused.refusedBy()).isEqualTo(Limit.MODEL_TOKENS);
        assertThat(refused.refusal().current()).isEqualTo(100);
        assertThat(refused.refusal().resetMillis()).isGreaterThan(Duration.ofMinutes(58).toMillis());
    }

    @Test
    void aChangedWindowKeepsTheCountOfALimitWithADurationOfItsOwn() {
        AdmissionStore store = newStore();
        RateLimiter minute = new RateLimiter(policy("models.m.rpd=3", "models.m.tpm=1000", "window=60s"), store);
        RateLimiter twoMinutes = new RateLimiter(policy("models.m.rpd=3", "models.m.tpm=1000", "window=2m"), store);
        assertThat(admitUntilRefused(minute, "m", null, 10)).isEqualTo(3);

        Verdict refused = decide(twoMinutes, "m", null);
        assertThat(refused.refusedBy()).isEqualTo(Limit.MODEL_REQUESTS);
        assertThat(refused.refusal().limit()).isEqualTo(3);
        assertThat(refused.refusal().group().window().millis()).isEqualTo(86_400_000);
    }

    @Test
    void aWindowMadeLongerOrSlidingByAReloadStillWeighsTheCountsBeforeIt() throws InterruptedException {
        AdmissionStore store = newStore();
        Duration window = Durations.parse("window", rollingWindow());
        String sliding = "window-mode=sliding";
        RateLimiter shortSliding = new RateLimiter(policy("models.m.rpm=10", sliding, "window=" + window.toMillis() + "ms"), store);
        RateLimiter longSliding = new RateLimiter(policy("models.m.rpm=10", sliding,
                "window=" + window.multipliedBy(4).toMillis() + "ms"), store);
        RateLimiter fixed = new RateLimiter(policy("models.n.rpm=10", "window=" + window.toMillis() + "ms"), store);
        RateLimiter nowSliding = new RateLimiter(policy("models.n.rpm=10", sliding, "window=" + window.toMillis() + "ms"), store);
        assertThat(admitUntilRefused(shortSliding, "m", null, 20)).isEqualTo(10);
        assertThat(admitUntilRefused(fixed, "n", null, 20)).isEqualTo(10);
        assertThat(decide(longSliding, "m", null).admitted()).isFalse();    // traffic under the reloaded policy
        assertThat(decide(nowSliding, "n", null).admitted()).isFalse();

        passWindow(window);                                 // the fixed window and its old lifetime end
        assertThat(admitUntilRefused(nowSliding, "n", null, 20)).isZero();   // its 10 weigh almost whole
        passWindow(window);                                 // so does the short sliding window's lifetime
        assertThat(admitUntilRefused(longSliding, "m", null, 20)).isEqualTo(2);   // 10 weighted by 3/4 of 4 windows: 8
    }

    @Test
    void unconfiguredModelsAreNotCounted() {
        RateLimiter limiter = limiter("models.m.rpm=1");
        for (int i = 0; i < 10; i++) {
            assertThat(admit(limiter, "other", "prod").outcome()).isEqualTo(Admission.Outcome.UNLIMITED);
        }
        assertThat(decide(limiter, "m", null).admitted()).isTrue();
    }

    // token-admission=reserve (docs/token-admission.md)

    private static Admission reserve(RateLimiter limiter, long promptTokens, long maxTokens) {
        return admit(limiter, "m", null, null, promptTokens, maxTokens);
    }

    @Test
    void aReservationFromBeforeAReloadIsGivenBackToItsOwnWindowOnly() throws InterruptedException {
        AdmissionStore store = newStore();
        Duration window = Durations.parse("window", rollingWindow());
        RateLimiter before = new RateLimiter(policy("models.m.tpm=1000", "token-admission=reserve",
                "window=" + window.toMillis() + "ms"), store);
        RateLimiter after = new RateLimiter(policy("models.m.tpm=1000", "token-admission=reserve",
                "window=" + window.dividedBy(2).toMillis() + "ms"), store);
        reserve(before, 1, 0).complete(new Usage(1, 0, 0));          // starts the old window
        pass(window.multipliedBy(3).dividedBy(4));
        Admission old = reserve(before, 900, 0);                     // late in the old window
        assertThat(old.reservedTokens()).isEqualTo(900);
        pass(window.multipliedBy(7).dividedBy(20));                 // the old window has ended
        Admission current = reserve(after, 500, 0);                  // its window ends within the old length of the old decision
        assertThat(current.verdict().tokenRemaining()).isEqualTo(500);
        old.complete(new Usage(1, 0, 0));                            // 899 given back, to the old window alone

        Verdict refused = reserve(after, 600, 0).verdict();
        assertThat(refused.refusedBy()).isEqualTo(Limit.MODEL_TOKENS);
        assertThat(refused.tokenRemaining()).isEqualTo(500);
    }

    @Test
    void reserveChecksCurrentPlusEstimateAndCorrectsAfterTheCall() {
        RateLimiter limiter = limiter("models.m.tpm=1000", "token-admission=reserve");
        Admission first = reserve(limiter, 300, 100);
        assertThat(first.reservedTokens()).isEqualTo(400);
        assertThat(first.verdict().tokenRemaining()).isEqualTo(600);
        Admission second = reserve(limiter, 300, 200);
        assertThat(second.verdict().tokenRemaining()).isEqualTo(100);

        Verdict tooBig = reserve(limiter, 50, 60).verdict();                         // 900 + 110 > 1000
        assertThat(tooBig.refusedBy()).isEqualTo(Limit.MODEL_TOKENS);
        assertThat(tooBig.tokenRemaining()).isEqualTo(100);
        Admission third = reserve(limiter, 50, 50);                                  // 900 + 100 = 1000
        assertThat(third.verdict().tokenRemaining()).isZero();
        assertThat(reserve(limiter, 0, 0).verdict().refusedBy()).isEqualTo(Limit.MODEL_TOKENS);   // reserves 1

        first.complete(new Usage(300, 20, 0));                                       // 320 of 400: 80 back
        second.abort();                                                              // all 500 back
        third.complete(new Usage(50, 70, 0));                                        // 120 of 100: 20 more
        assertThat(reserve(limiter, 0, 0).verdict().tokenRemaining()).isEqualTo(1000 - 320 - 120 - 1);
    }

    @Test
    void anEstimateAboveTheLimitIsAdmittedOnlyWhileTheCounterIsZero() {
        RateLimiter limiter = limiter("models.m.tpm=100", "token-admission=reserve");
        Admission huge = reserve(limiter, 10, 5000);
        assertThat(huge.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(huge.reservedTokens()).isEqualTo(100);                            // held at the model's TPM
        assertThat(huge.verdict().tokenRemaining()).isZero();
        assertThat(reserve(limiter, 10, 5000).verdict().refusedBy()).isEqualTo(Limit.MODEL_TOKENS);
        huge.abort();

        Admission small = reserve(limiter, 0, 1);
        small.complete(new Usage(0, 1, 0));
        assertThat(reserve(limiter, 10, 5000).verdict().refusedBy()).isEqualTo(Limit.MODEL_TOKENS);   // 1, not 0
    }

    @Test
    void reservationsCountPerPoolInStrictMode() {
        RateLimiter limiter = limiter("models.m.tpm=1000", "token-admission=reserve",
                "reservation.prod=0.8", "reservation.dev=0.2", "saturation-threshold=0.5");
        assertThat(admit(limiter, "m", "dev", null, 0, 500).verdict().tokenRemaining()).isEqualTo(500);
        Verdict dev = admit(limiter, "m", "dev", null, 0, 1).verdict();               // strict: dev holds 500 of 200
        assertThat(dev.refusedBy()).isEqualTo(Limit.POOL_TOKENS);
        assertThat(dev.tokenLimit()).isEqualTo(200);
        Verdict prod = admit(limiter, "m", "prod", null, 0, 300).verdict();
        assertThat(prod.tokenLimit()).isEqualTo(1000);
        assertThat(prod.tokenRemaining()).isEqualTo(200);                             // pool 800 - 300, model 1000 - 800
    }

    @Test
    void aCorrectionAfterTheWindowRolledChangesNoWindow() throws InterruptedException {
        RateLimiter limiter = limiter("models.m.tpm=1000", "models.m.rpm=1000", "token-admission=reserve",
                "window=" + rollingWindow());
        Admission refunded = reserve(limiter, 0, 400);
        Admission underestimated = reserve(limiter, 0, 300);
        passWindow(limiter.policy().window());

        Admission fresh = reserve(limiter, 0, 100);
        assertThat(fresh.verdict().tokenRemaining()).isEqualTo(900);
        refunded.abort();                                                            // would credit 400
        underestimated.complete(new Usage(0, 900, 0));                               // would charge 600
        assertThat(reserve(limiter, 0, 100).verdict().tokenRemaining()).isEqualTo(800);
        fresh.complete(new Usage(0, 0, 0));                                          // 100 back, in this window
        assertThat(reserve(limiter, 0, 1).verdict().tokenRemaining()).isEqualTo(1000 - 100 - 1);
    }

    @Test
    void aCorrectionNeverTakesACounterBelowZero() {
        AdmissionStore store = newStore();
        CounterGroup model = new CounterGroup(GroupKind.MODEL, "m", "", GroupWindow.rolling(60_000, false),
                new Limits(Limits.NONE, 1000, Limits.NONE, Limits.NONE), Enforcement.ALWAYS, new Increments(1, 100, 0, false));
        CounterGroup pool = new CounterGroup(GroupKind.POOL, "m", "prod", GroupWindow.rolling(60_000, false),
                new Limits(Limits.NONE, 800, Limits.NONE, Limits.NONE), Enforcement.whenSaturated(0.5),
                new Increments(1, 100, 0, false));
        Plan reserved = new Plan("r1", "m", "prod", List.of(model, pool), 600_000, UsageCost.FREE);
        assertThat(store.decide(reserved).admitted()).isTrue();
        store.settle(reserved, Settlement.of(0, 0));                                   // 100 back: both at 0
        Plan late = new Plan("r2", "m", "prod", List.of(model.withIncrements(new Increments(1, 0, 0, false)),
                pool.withIncrements(new Increments(1, 0, 0, false))), 600_000, UsageCost.FREE);
        store.settle(late, Settlement.of(0, 0));                                       // nothing to take
        Verdict after = store.decide(new Plan("r3", "m", "prod", List.of(model.withIncrements(new Increments(1, 1, 0, false)),
                pool.withIncrements(new Increments(1, 1, 0, false))), 600_000, UsageCost.FREE));
        assertThat(after.admitted()).isTrue();
        assertThat(after.tokenRemaining()).isEqualTo(999);
    }

    // window-mode=sliding (docs/windows.md)

    @Test
    void aFullQuotaAtTheEndOfAWindowIsNotGrantedAgainAtTheStartOfTheNext() throws InterruptedException {
        RateLimiter limiter = limiter("models.m.rpm=10", "window-mode=sliding", "window=" + rollingWindow());
        Duration window = limiter.policy().window();
        assertThat(decide(limiter, "m", null).admitted()).isTrue();                 // the window starts
        pass(window.multipliedBy(8).dividedBy(10));
        Verdict last = null;
        int late = 0;
        for (Verdict verdict = decide(limiter, "m", null); verdict.admitted(); verdict = decide(limiter, "m", null)) {
            last = verdict;
            late++;
        }
        assertThat(late).isEqualTo(9);

        pass(Duration.ofMillis(last.resetMillis() + 10));                           // just into the next window
        Verdict refused = decide(limiter, "m", null);
        assertThat(refused.refusedBy()).isEqualTo(Limit.MODEL_REQUESTS);           // a fixed window would admit 10
        // 10 weighted by what is left of the span must fall to 9: after a tenth of the window
        long clearsAt = window.toMillis() / 10 - 10;
        assertThat(refused.retryAfterSeconds()).isEqualTo(Math.max(1, (clearsAt + 999) / 1000));

        pass(window.dividedBy(2));                                                  // half of the old window still counts
        assertThat(admitUntilRefused(limiter, "m", null, 100)).isEqualTo(5);
    }

    @Test
    void aSlidingWindowTakesACorrectionIntoThePreviousWindow() throws InterruptedException {
        RateLimiter limiter = limiter("models.m.tpm=100", "models.m.rpm=1000", "token-admission=reserve",
                "window-mode=sliding", "window=" + rollingWindow());
        Admission earlier = reserve(limiter, 0, 60);
        pass(Duration.ofMillis(earlier.verdict().resetMillis() + 10));               // the next window
        assertThat(reserve(limiter, 0, 100).verdict().refusedBy()).isEqualTo(Limit.MODEL_TOKENS);
        earlier.abort();                                                             // refunded where it was reserved
        Admission whole = reserve(limiter, 0, 100);
        assertThat(whole.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(whole.verdict().tokenRemaining()).isZero();
    }

    // per-caller limits (docs/identity.md), in the same plan as the model's (docs/admission.md)

    private RateLimiter callerLimiter;
    private AdmissionStore callerStore;

    /** A limiter whose model admits far more than any caller limit here. */
    private RateLimiter callers() {
        if (callerLimiter == null) {
            callerStore = newStore();
            callerLimiter = new RateLimiter(policy("models.m.rpm=1000000", "models.m.tpm=100000000",
                    "window=" + rollingWindow()), callerStore);
        }
        return callerLimiter;
    }

    private CallerPlan plan(CallerCounter... counters) {
        return new CallerPlan(List.of(counters), callers().policy().window().toMillis(), lease().toMillis());
    }

    private static CallerCounter counter(CallerScope scope, String id, long rpm, long tpm, long parallel) {
        return new CallerCounter(scope, id, rpm, tpm, parallel);
    }

    private Admission admitted(CallerPlan plan) {
        Admission admission = admit(callers(), "m", null, null, plan);
        assertThat(admission.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        return admission;
    }

    private Refusal refused(CallerPlan plan) {
        Admission admission = admit(callers(), "m", null, null, plan);
        assertThat(admission.outcome()).isEqualTo(Admission.Outcome.REFUSED);
        return admission.refusal();
    }

    private static void assertGroup(Refusal refusal, GroupKind kind, String id) {
        assertThat(refusal.group().kind()).isEqualTo(kind);
        assertThat(refusal.group().id()).isEqualTo(id);
    }

    @Test
    void requestsPerWindowAtKeyScope() throws InterruptedException {
        CallerPlan plan = plan(counter(CallerScope.KEY, "sk-live-1", 3, 0, 0));
        for (int i = 0; i < 3; i++) {
            admitted(plan);
        }

        Refusal refusal = refused(plan);
        assertGroup(refusal, GroupKind.KEY, "sk-live-1");
        assertThat(refusal.dimension()).isEqualTo(Dimension.REQUESTS);
        assertThat(refusal.limit()).isEqualTo(3);
        assertThat(refusal.current()).isEqualTo(3);
        assertThat(refusal.resetMillis()).isBetween(1L, callers().policy().window().toMillis());
        assertThat(refused(plan).current()).isEqualTo(3);                   // a refusal counts nothing

        passWindow(callers().policy().window());
        admitted(plan);
    }

    @Test
    void tokensPerWindowAtUserScopeCountAfterTheCall() throws InterruptedException {
        CallerPlan plan = plan(counter(CallerScope.USER, "dana", 0, 100, 0));
        admitted(plan).complete(new Usage(60, 0, 0));
        admitted(plan).complete(new Usage(40, 0, 0));                       // 60 < 100: admitted

        Refusal refusal = refused(plan);
        assertThat(refusal.dimension()).isEqualTo(Dimension.TOKENS);
        assertThat(refusal.limit()).isEqualTo(100);
        assertThat(refusal.current()).isEqualTo(100);
        assertGroup(refusal, GroupKind.USER, "dana");

        passWindow(callers().policy().window());
        admitted(plan);
    }

    @Test
    void parallelRequestsAtTeamScopeUntilReleased() {
        CallerPlan plan = plan(counter(CallerScope.TEAM, "team-a", 0, 0, 2));
        Admission first = admitted(plan);
        Admission second = admitted(plan);

        Refusal refusal = refused(plan);
        assertThat(refusal.dimension()).isEqualTo(Dimension.PARALLEL_REQUESTS);
        assertThat(refusal.limit()).isEqualTo(2);
        assertThat(refusal.current()).isEqualTo(2);
        assertThat(refusal.retryAfterSeconds()).isEqualTo(1);

        first.abort();
        first.abort();                                                       // a second release frees nothing more
        Admission third = admitted(plan);
        assertThat(refused(plan).current()).isEqualTo(2);
        second.abort();
        third.complete(new Usage(1, 1, 0));
        admitted(plan);
        admitted(plan);
        assertThat(refused(plan).current()).isEqualTo(2);
    }

    @Test
    void eachScopeIdentityHasItsOwnCountersAndATeamIsShared() {
        CallerCounter team = counter(CallerScope.TEAM, "shared", 3, 0, 0);
        CallerPlan keyA = plan(counter(CallerScope.KEY, "a", 5, 0, 0), team);
        CallerPlan keyB = plan(counter(CallerScope.KEY, "b", 5, 0, 0), team);
        CallerPlan keyNamedLikeTheTeam = plan(counter(CallerScope.KEY, "shared", 1, 0, 0));
        admitted(keyA);
        admitted(keyA);
        admitted(keyB);

        Refusal refusal = refused(keyB);
        assertGroup(refusal, GroupKind.TEAM, "shared");
        assertThat(refusal.current()).isEqualTo(3);
        assertGroup(refused(keyA), GroupKind.TEAM, "shared");
        admitted(keyNamedLikeTheTeam);                                       // another scope, another counter
    }

    @Test
    void aRefusalByOneScopeCountsNothingInTheOthers() {
        CallerPlan plan = plan(counter(CallerScope.KEY, "k", 5, 0, 0), counter(CallerScope.TEAM, "t", 0, 0, 1));
        Admission held = admitted(plan);
        for (int i = 0; i < 3; i++) {
            assertGroup(refused(plan), GroupKind.TEAM, "t");
        }
        held.abort();

        int admitted = 0;
        Admission admission;
        while ((admission = admit(callers(), "m", null, null, plan)).outcome() == Admission.Outcome.ADMITTED) {
            admission.abort();
            admitted++;
        }
        assertThat(admitted).isEqualTo(4);
        assertGroup(admission.refusal(), GroupKind.KEY, "k");
        assertThat(admission.refusal().current()).isEqualTo(5);
    }

    @Test
    void aCancelTakesBackTheRequestAndTheSlotOnce() {
        CallerPlan plan = plan(counter(CallerScope.KEY, "k", 2, 0, 1), counter(CallerScope.USER, "u", 2, 0, 0));
        Plan cancelled = admitted(plan).plan();
        callerStore.settle(cancelled, Settlement.CANCEL);
        callerStore.settle(cancelled, Settlement.CANCEL);                         // idempotent: takes back nothing more
        admitted(plan).abort();
        admitted(plan).abort();

        Refusal refusal = refused(plan);
        assertThat(refusal.dimension()).isEqualTo(Dimension.REQUESTS);
        assertThat(refusal.current()).isEqualTo(2);
    }

    @Test
    void aCancelLeavesALaterWindowAlone() throws InterruptedException {
        CallerPlan plan = plan(counter(CallerScope.KEY, "k", 1, 0, 0));
        Plan old = admitted(plan).plan();
        passWindow(callers().policy().window());
        admitted(plan);

        callerStore.settle(old, Settlement.CANCEL);

        assertThat(refused(plan).current()).isEqualTo(1);
    }

    @Test
    void aCancelBeforeTheDecisionRunsMakesTheDecisionCountNothing() {
        AdmissionStore store = newStore();
        CounterGroup key = new CounterGroup(GroupKind.KEY, "late", "", GroupWindow.rolling(60_000, false),
                new Limits(5, Limits.NONE, 1, Limits.NONE), Enforcement.ALWAYS, new Increments(1, 0, 0, true));
        Plan timedOut = new Plan("gave-up", "m", "default", List.of(key), 600_000, UsageCost.FREE);
        store.settle(timedOut, Settlement.CANCEL);                            // the client gave up first
        try {
            store.decide(timedOut);                                           // ... and the decision ran late
        } catch (RuntimeException refusedToRun) {
            // a store may answer a cancelled decision with an error; it must count nothing either way
        }
        Plan next = new Plan("next", "m", "default", List.of(key), 600_000, UsageCost.FREE);
        assertThat(store.decide(next).admitted()).isTrue();                   // the slot is free
        store.settle(next, Settlement.of(0, 0));
    }

    @Test
    void aSettlementIsAppliedOnce() {
        RateLimiter limiter = limiter("models.m.tpm=1000", "token-admission=reserve");
        Admission admission = reserve(limiter, 0, 100);
        AdmissionStore store = stores.get(stores.size() - 1);
        store.settle(admission.plan(), Settlement.of(300, 0));
        store.settle(admission.plan(), Settlement.of(300, 0));
        assertThat(reserve(limiter, 0, 1).verdict().tokenRemaining()).isEqualTo(1000 - 300 - 1);
    }

    @Test
    void anUnreleasedSlotExpiresWithItsLease() throws InterruptedException {
        CallerPlan plan = plan(counter(CallerScope.KEY, "crashed", 0, 0, 1));
        admitted(plan);
        assertThat(refused(plan).current()).isEqualTo(1);

        pass(lease().plusMillis(10));

        admitted(plan);
        assertThat(refused(plan).current()).isEqualTo(1);
    }

    @Test
    void aSettlementAfterItsSlotsLeaseEndedFreesNoOtherRequestsSlot() throws InterruptedException {
        CallerPlan plan = plan(counter(CallerScope.KEY, "slow", 0, 0, 1));
        Admission outlived = admitted(plan);
        pass(lease().plusMillis(10));
        admitted(plan);                                  // the lease gave the slot back: the next request holds it

        outlived.abort();                                // the first call ends at last

        assertThat(refused(plan).current()).isEqualTo(1);
    }

    @Test
    void recordingWithoutALiveWindowStartsOne() {
        AdmissionStore store = newStore();
        CounterGroup team = new CounterGroup(GroupKind.TEAM, "t", "", GroupWindow.rolling(60_000, false),
                new Limits(Limits.NONE, 50, Limits.NONE, Limits.NONE), Enforcement.ALWAYS, new Increments(1, 0, 0, false));
        store.settle(new Plan("never-decided", "m", "default", List.of(team), 600_000, UsageCost.FREE), Settlement.of(50, 0).asLate());

        Verdict refused = store.decide(new Plan("r", "m", "default", List.of(team), 600_000, UsageCost.FREE));
        assertThat(refused.refusal().current()).isEqualTo(50);
        assertThat(refused.refusal().resetMillis()).isBetween(1L, 60_000L);
    }

    @Test
    void aRequestServedWithoutAnAnswerIsCountedOnceWhateverItsDecisionDoesLater() {
        AdmissionStore store = newStore();
        CounterGroup team = new CounterGroup(GroupKind.TEAM, "served", "", GroupWindow.rolling(60_000, false),
                new Limits(3, 1000, Limits.NONE, Limits.NONE), Enforcement.ALWAYS, new Increments(1, 0, 0, false));
        Plan neverAnswered = new Plan("no-answer", "m", "default", List.of(team), 600_000, UsageCost.FREE);
        store.settle(neverAnswered, Settlement.of(40, 0).asUnanswered());
        store.settle(neverAnswered, Settlement.of(40, 0).asUnanswered());          // sent again: counted once
        try {
            store.decide(neverAnswered);                                          // the decision runs late
        } catch (RuntimeException refusedToRun) {
            // a store may answer a decision already settled with an error; it must count nothing either way
        }
        Plan answered = new Plan("answered-late", "m", "default", List.of(team), 600_000, UsageCost.FREE);
        assertThat(store.decide(answered).admitted()).isTrue();                   // ran late, then settled
        store.settle(answered, Settlement.of(10, 0).asUnanswered());

        assertThat(store.decide(new Plan("next", "m", "default", List.of(team), 600_000, UsageCost.FREE)).admitted())
                .isTrue();
        Verdict full = store.decide(new Plan("full", "m", "default", List.of(team), 600_000, UsageCost.FREE));
        assertThat(full.refusal().dimension()).isEqualTo(Dimension.REQUESTS);
        assertThat(full.refusal().current()).isEqualTo(3);                        // the two served, and "next"
        CounterGroup tokensOnly = new CounterGroup(GroupKind.TEAM, "served", "", GroupWindow.rolling(60_000, false),
                new Limits(Limits.NONE, 1000, Limits.NONE, Limits.NONE), Enforcement.ALWAYS, new Increments(0, 951, 0, false));
        Verdict tokens = store.decide(new Plan("tokens", "m", "default", List.of(tokensOnly), 600_000, UsageCost.FREE));
        assertThat(tokens.refusal().dimension()).isEqualTo(Dimension.TOKENS);
        assertThat(tokens.refusal().current()).isEqualTo(50);                     // 40 + 10 recorded, once each
    }

    @Test
    void callerLimitsSlideWithTheWindow() throws InterruptedException {
        RateLimiter limiter = limiter("models.m.rpm=1000", "window-mode=sliding", "window=" + rollingWindow());
        Duration window = limiter.policy().window();
        CallerPlan plan = new CallerPlan(List.of(counter(CallerScope.KEY, "slider", 10, 0, 0)), window.toMillis(),
                lease().toMillis());
        Admission first = admit(limiter, "m", null, null, plan);
        pass(window.multipliedBy(8).dividedBy(10));
        int late = 1;
        Admission admission;
        while ((admission = admit(limiter, "m", null, null, plan)).outcome() == Admission.Outcome.ADMITTED) {
            late++;
        }
        assertThat(late).isEqualTo(10);
        pass(Duration.ofMillis(first.verdict().resetMillis() - window.toMillis() * 8 / 10 + 50));   // into the next window
        Refusal refusal = admit(limiter, "m", null, null, plan).refusal();
        assertThat(refusal.dimension()).isEqualTo(Dimension.REQUESTS);     // a fixed window would admit 10 again
        assertGroup(refusal, GroupKind.KEY, "slider");
    }

    @Test
    void oneRefusalAnywhereInThePlanCountsNothingAnywhere() {
        RateLimiter limiter = limiter("models.m.rpm=10", "reservation.prod=0.2", "saturation-threshold=0");
        CallerPlan caller = new CallerPlan(List.of(counter(CallerScope.KEY, "k", 3, 0, 1),
                counter(CallerScope.TEAM, "team", 100, 0, 0)), 60_000, lease().toMillis());
        admit(limiter, "m", "prod", null, caller).abort();
        admit(limiter, "m", "prod", null, caller).abort();
        for (int i = 0; i < 4; i++) {                                         // the pool (2 of 10) refuses
            assertThat(admit(limiter, "m", "prod", null, caller).verdict().refusedBy()).isEqualTo(Limit.POOL_REQUESTS);
        }
        Admission third = admit(limiter, "m", null, null, caller);           // the default pool: key request 3 of 3
        assertThat(third.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        Refusal slot = admit(limiter, "m", null, null, caller).refusal();
        assertThat(slot.dimension()).isEqualTo(Dimension.REQUESTS);
        assertThat(slot.current()).isEqualTo(3);
        assertThat(admit(limiter, "m", "prod", null, null).verdict().saturation()).isEqualTo(0.3);
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

    @Test
    void aSnapshotShowsWhatDecisionsCountedAndChangesNothing() {
        RateLimiter limiter = limiter("models.m.rpm=10", "models.m.tpm=1000", "reservation.prod=0.5");
        for (int i = 0; i < 3; i++) {
            use(limiter, "m", "prod", 100);
        }
        admit(limiter, "m", null);
        admit(limiter, "m", null);
        ModelCounters counters = limiter.snapshot("m");
        assertThat(counters.requests()).isEqualTo(5);
        assertThat(counters.tokens()).isEqualTo(300);
        assertThat(counters.window(0).pool(0, Dimension.REQUESTS)).isEqualTo(2);   // default first, then prod
        assertThat(counters.window(0).pool(1, Dimension.REQUESTS)).isEqualTo(3);
        assertThat(counters.window(0).pool(0, Dimension.TOKENS)).isZero();
        assertThat(counters.window(0).pool(1, Dimension.TOKENS)).isEqualTo(300);
        assertThat(counters.remainingMillis()).isBetween(1L, 60_000L);
        assertThat(limiter.groupsOf("m").saturation(counters)).isEqualTo(0.5);
        ModelCounters again = limiter.snapshot("m");
        assertThat(again.requests()).isEqualTo(5);
        assertThat(again.window(0).pool(1, Dimension.REQUESTS)).isEqualTo(3);
        // Strict now (saturation 0.5): prod may hold 5 and holds 3, so this one leaves 1; the snapshots counted nothing.
        assertThat(decide(limiter, "m", "prod").requestRemaining()).isEqualTo(1);
    }

    @Test
    void aSnapshotOfAnIdleModelStartsNoWindow() throws InterruptedException {
        RateLimiter limiter = limiter("models.m.rpm=10", "window=" + rollingWindow());
        assertThat(limiter.snapshot("m")).isEqualTo(ModelCounters.idle(limiter.groupsOf("m")));
        assertThat(limiter.snapshot("unconfigured")).isNull();
        admit(limiter, "m", null);
        assertThat(limiter.snapshot("m").requests()).isEqualTo(1);
        passWindow(Durations.parse("window", rollingWindow()));
        assertThat(limiter.snapshot("m")).isEqualTo(ModelCounters.idle(limiter.groupsOf("m")));
        assertThat(limiter.snapshot("m")).isEqualTo(ModelCounters.idle(limiter.groupsOf("m")));
    }

    // limits as data (docs/windows.md): any dimension, several windows per scope

    @Test
    void aSnapshotShowsEveryLimitedDimensionInEveryWindowOfTheModel() {
        RateLimiter limiter = limiter("models.m.rpm=10", "models.m.itpm=100", "models.m.otpm=100", "models.m.tpd=1000",
                "reservation.low=0.5");
        for (int i = 0; i < 2; i++) {
            use(limiter, "m", "low", new Usage(10, 30, 0));
        }
        use(limiter, "m", null, new Usage(5, 5, 0));

        ModelGroups groups = limiter.groupsOf("m");
        assertThat(groups.windows()).hasSize(2);
        assertThat(groups.windows().get(1).model().window().millis()).isEqualTo(86_400_000);
        ModelCounters counters = limiter.snapshot("m");
        WindowCounters minute = counters.window(0);
        assertThat(minute.of(Dimension.REQUESTS)).isEqualTo(3);
        assertThat(minute.of(Dimension.INPUT_TOKENS)).isEqualTo(25);
        assertThat(minute.of(Dimension.OUTPUT_TOKENS)).isEqualTo(65);
        assertThat(minute.pool(0, Dimension.OUTPUT_TOKENS)).isEqualTo(5);     // default
        assertThat(minute.pool(1, Dimension.OUTPUT_TOKENS)).isEqualTo(60);    // low
        assertThat(minute.pool(1, Dimension.INPUT_TOKENS)).isEqualTo(20);
        WindowCounters day = counters.window(1);
        assertThat(day.of(Dimension.TOKENS)).isEqualTo(90);
        assertThat(day.pool(0, Dimension.TOKENS)).isEqualTo(10);
        assertThat(day.pool(1, Dimension.TOKENS)).isEqualTo(80);
        assertThat(day.remainingMillis()).isBetween(86_000_000L, 86_400_000L);
        // output tokens per minute is the most used: 65 of 100; the next decision sees the same
        assertThat(groups.saturation(counters)).isEqualTo(0.65);
        assertThat(decide(limiter, "m", "low").saturation()).isEqualTo(0.65);
    }


    @Test
    void eachDimensionShowsTheResetOfTheWindowItsFiguresComeFrom() {
        RateLimiter limiter = limiter("models.m.rpm=100", "models.m.rpd=10", "models.m.tpm=1000", "window=1m");
        use(limiter, "m", null, new Usage(5, 5, 0));
        Verdict admitted = decide(limiter, "m", null);
        assertThat(admitted.admitted()).isTrue();
        assertThat(admitted.requestLimit()).isEqualTo(10);                 // the day's limit is the tighter one
        assertThat(admitted.requestRemaining()).isEqualTo(8);
        assertThat(admitted.resetMillis(Dimension.REQUESTS)).isBetween(86_000_000L, 86_400_000L);
        assertThat(admitted.tokenLimit()).isEqualTo(1000);
        assertThat(admitted.tokenRemaining()).isEqualTo(990);
        assertThat(admitted.resetMillis(Dimension.TOKENS)).isBetween(50_000L, 60_000L);
    }

    @Test
    void ofTwoLimitsLeftAlikeTheResetShownIsTheLaterOne() {
        RateLimiter limiter = limiter("models.m.rpm=2", "models.m.limits.requests.1m=2", "window=1h");
        decide(limiter, "m", null);
        Verdict last = decide(limiter, "m", null);            // nothing left of either: the hour's binds longer
        assertThat(last.admitted()).isTrue();
        assertThat(last.requestRemaining()).isZero();
        assertThat(last.resetMillis(Dimension.REQUESTS)).isBetween(3_500_000L, 3_600_000L);
    }

    @Test
    void aModelsWindowsCountApartAndTheLongerOneRefusesAfterTheShorterRolled() throws InterruptedException {
        RateLimiter limiter = limiter("models.m.rpm=3", "models.m.limits.requests.1h=5", "window=" + rollingWindow());

        assertThat(admitUntilRefused(limiter, "m", null, 100)).isEqualTo(3);
        Verdict perWindow = decide(limiter, "m", null);
        assertThat(perWindow.refusedBy()).isEqualTo(Limit.MODEL_REQUESTS);
        assertThat(perWindow.requestLimit()).isEqualTo(3);
        assertThat(perWindow.refusal().group().window().tag()).isEmpty();

        passWindow(limiter.policy().window());
        assertThat(admitUntilRefused(limiter, "m", null, 100)).isEqualTo(2);
        Verdict perHour = decide(limiter, "m", null);
        assertThat(perHour.refusedBy()).isEqualTo(Limit.MODEL_REQUESTS);
        assertThat(perHour.requestLimit()).isEqualTo(5);
        assertThat(perHour.requestRemaining()).isZero();
        assertThat(perHour.refusal().group().window().millis()).isEqualTo(3_600_000);
        assertThat(perHour.refusal().resetMillis()).isBetween(3_000_000L, 3_600_000L);
    }

    @Test
    void recordedOutputTokensRefuseWhileInputTokensRemain() {
        RateLimiter limiter = limiter("models.m.itpm=100", "models.m.otpm=50", "models.m.tpd=1000");

        for (int i = 0; i < 2; i++) {
            Admission admission = admit(limiter, "m", null);
            assertThat(admission.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
            admission.complete(new Usage(10, 30, 0));
        }
        Verdict refused = decide(limiter, "m", null);                   // output 60 of 50, input 20 of 100
        assertThat(refused.refusedBy()).isEqualTo(Limit.MODEL_OUTPUT_TOKENS);
        assertThat(refused.refusal().current()).isEqualTo(60);
        assertThat(refused.limit(Dimension.OUTPUT_TOKENS)).isEqualTo(50);
        assertThat(refused.remaining(Dimension.OUTPUT_TOKENS)).isZero();
        assertThat(refused.limit(Dimension.INPUT_TOKENS)).isEqualTo(-1);
        assertThat(refused.saturation()).isEqualTo(1.2);

        RateLimiter inputOnly = limiter("models.m.itpm=100", "models.m.tpd=1000");
        Admission first = admit(inputOnly, "m", null);
        first.complete(new Usage(10, 30, 0));
        Verdict admitted = decide(inputOnly, "m", null);
        assertThat(admitted.limit(Dimension.INPUT_TOKENS)).isEqualTo(100);
        assertThat(admitted.remaining(Dimension.INPUT_TOKENS)).isEqualTo(90);
        assertThat(admitted.limit(Dimension.TOKENS)).isEqualTo(1000);
        assertThat(admitted.remaining(Dimension.TOKENS)).isEqualTo(960);  // the day's window counts prompt and output
    }

    @Test
    void reservedInputAndOutputTokensAreSettledFromTheUsage() {
        RateLimiter limiter = limiter("models.m.itpm=100", "models.m.otpm=50", "token-admission=reserve");

        Admission first = admit(limiter, "m", null, null, 10, 30);
        assertThat(first.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(first.verdict().remaining(Dimension.INPUT_TOKENS)).isEqualTo(90);
        assertThat(first.verdict().remaining(Dimension.OUTPUT_TOKENS)).isEqualTo(20);
        Admission second = admit(limiter, "m", null, null, 10, 30);      // 30 reserved + 30 > 50
        assertThat(second.outcome()).isEqualTo(Admission.Outcome.REFUSED);
        assertThat(second.verdict().refusedBy()).isEqualTo(Limit.MODEL_OUTPUT_TOKENS);

        first.complete(new Usage(12, 5, 0));                              // the output reservation shrinks to 5
        Admission third = admit(limiter, "m", null, null, 10, 30);
        assertThat(third.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(third.verdict().remaining(Dimension.INPUT_TOKENS)).isEqualTo(78);
        assertThat(third.verdict().remaining(Dimension.OUTPUT_TOKENS)).isEqualTo(15);
        third.abort();
        Verdict after = admit(limiter, "m", null, null, 1, 1).verdict();
        assertThat(after.remaining(Dimension.INPUT_TOKENS)).isEqualTo(87);
        assertThat(after.remaining(Dimension.OUTPUT_TOKENS)).isEqualTo(44);
    }

    @Test
    void aPoolsShareAppliesToEachLimitOfItsModel() {
        RateLimiter limiter = limiter("models.m.otpm=100", "models.m.limits.requests.1h=10", "reservation.low=0.5",
                "saturation-threshold=0");

        assertThat(admitUntilRefused(limiter, "m", "low", 100)).isEqualTo(5);
        Verdict refused = decide(limiter, "m", "low");
        assertThat(refused.refusedBy()).isEqualTo(Limit.POOL_REQUESTS);
        assertThat(refused.requestLimit()).isEqualTo(5);
        assertThat(admitUntilRefused(limiter, "m", null, 100)).isEqualTo(2);   // the default pool: 0.25 of 10

        RateLimiter tokens = limiter("models.m.otpm=100", "reservation.low=0.5", "saturation-threshold=0");
        Admission used = admit(tokens, "m", "low");
        used.complete(new Usage(0, 50, 0));
        Verdict outOfShare = decide(tokens, "m", "low");
        assertThat(outOfShare.refusedBy()).isEqualTo(Limit.POOL_OUTPUT_TOKENS);
        assertThat(outOfShare.limit(Dimension.OUTPUT_TOKENS)).isEqualTo(50);
    }

    @Test
    void aCallerScopeHasAnyDimensionOverSeveralWindows() throws InterruptedException {
        long hour = 3_600_000;
        CallerPlan requests = plan(new CallerCounter(CallerScope.KEY, "k-windows", List.of(
                new RateLimit(Dimension.REQUESTS, RateLimit.CONFIGURED_WINDOW, 2), new RateLimit(Dimension.REQUESTS, hour, 3)), 0));
        admitted(requests);
        admitted(requests);
        Refusal perWindow = refused(requests);
        assertGroup(perWindow, GroupKind.KEY, "k-windows");
        assertThat(perWindow.group().window().tag()).isEmpty();
        passWindow(callers().policy().window());
        admitted(requests);
        Refusal perHour = refused(requests);
        assertThat(perHour.dimension()).isEqualTo(Dimension.REQUESTS);
        assertThat(perHour.limit()).isEqualTo(3);
        assertThat(perHour.group().window().millis()).isEqualTo(hour);

        CallerPlan output = plan(new CallerCounter(CallerScope.TEAM, "t-output", List.of(
                new RateLimit(Dimension.INPUT_TOKENS, hour, 1000), new RateLimit(Dimension.OUTPUT_TOKENS, hour, 50)), 0));
        admitted(output).complete(new Usage(10, 40, 0));
        admitted(output).complete(new Usage(10, 20, 0));
        Refusal team = refused(output);
        assertGroup(team, GroupKind.TEAM, "t-output");
        assertThat(team.dimension()).isEqualTo(Dimension.OUTPUT_TOKENS);
        assertThat(team.current()).isEqualTo(60);
        assertThat(team.limit()).isEqualTo(50);
    }

    @Test
    void underWorkConservingFairnessALonePriorityUsesTheWholeModel() {
        RateLimiter limiter = limiter("models.m.rpm=100", "reservation.a=0.5", "reservation.b=0.5",
                "saturation-threshold=0.5", "fairness=work-conserving");

        assertThat(admitUntilRefused(limiter, "m", "a", 1000)).isEqualTo(100);      // saturation fairness: 50
        Verdict full = decide(limiter, "m", "a");
        assertThat(full.refusedBy()).isEqualTo(Limit.MODEL_REQUESTS);
        assertThat(full.sharing().activePools()).containsExactly("a");
        assertThat(full.sharing().shareNow()).isEqualTo(1.0);

        Verdict b = decide(limiter, "m", "b");
        assertThat(b.refusedBy()).isEqualTo(Limit.MODEL_REQUESTS);
        assertThat(b.sharing().activePools()).containsExactly("a", "b");
        assertThat(b.sharing().shareNow()).isEqualTo(0.5);
    }

    @Test
    void underWorkConservingFairnessEachArrivingPriorityTakesItsShareBack() {
        RateLimiter limiter = limiter("models.m.rpm=100", "reservation.a=0.5", "reservation.b=0.25",
                "default-priority=0.25", "saturation-threshold=0.5", "fairness=work-conserving");

        assertThat(admitUntilRefused(limiter, "m", "a", 60)).isEqualTo(60);         // alone: up to 100
        assertThat(decide(limiter, "m", "b").admitted()).isTrue();                   // b is active from here
        assertThat(admitUntilRefused(limiter, "m", "a", 1000)).isEqualTo(6);        // 0.5 / 0.75 of 100 = 66
        Verdict a = decide(limiter, "m", "a");
        assertThat(a.refusedBy()).isEqualTo(Limit.POOL_REQUESTS);
        assertThat(a.requestLimit()).isEqualTo(66);
        assertThat(a.sharing().activePools()).containsExactly("a", "b");

        assertThat(admitUntilRefused(limiter, "m", "b", 1000)).isEqualTo(32);       // 0.25 / 0.75: 33
        Verdict b = decide(limiter, "m", "b");
        assertThat(b.refusedBy()).isEqualTo(Limit.POOL_REQUESTS);
        assertThat(b.requestLimit()).isEqualTo(33);

        assertThat(admitUntilRefused(limiter, "m", null, 1000)).isEqualTo(1);       // the model is full at 100
        Verdict others = decide(limiter, "m", null);
        assertThat(others.refusedBy()).isEqualTo(Limit.MODEL_REQUESTS);
        assertThat(others.sharing().activePools()).containsExactly("default", "a", "b");
        assertThat(others.sharing().shareNow()).isEqualTo(0.25);
        Verdict aAmongAll = decide(limiter, "m", "a");
        assertThat(aAmongAll.refusedBy()).isEqualTo(Limit.MODEL_REQUESTS);                // checked before the pool
        assertThat(aAmongAll.sharing().shareNow()).isEqualTo(0.5);
    }

    @Test
    void underWorkConservingFairnessAPoolThatStoppedAskingIsIdleAfterAWindow() throws InterruptedException {
        RateLimiter limiter = limiter("models.m.rpm=10", "reservation.a=0.5", "reservation.b=0.5",
                "saturation-threshold=0", "fairness=work-conserving", "window=" + rollingWindow());

        assertThat(decide(limiter, "m", "b").admitted()).isTrue();
        assertThat(admitUntilRefused(limiter, "m", "a", 100)).isEqualTo(5);
        passWindow(limiter.policy().window());
        assertThat(admitUntilRefused(limiter, "m", "a", 100)).isEqualTo(10);
        assertThat(decide(limiter, "m", "a").sharing().activePools()).containsExactly("a");
    }

    @Test
    void underSaturationFairnessALonePriorityIsHeldToItsShareAboveTheThreshold() {
        RateLimiter limiter = limiter("models.m.rpm=100", "reservation.a=0.5", "reservation.b=0.5",
                "saturation-threshold=0.5");

        assertThat(admitUntilRefused(limiter, "m", "a", 1000)).isEqualTo(50);
        Verdict a = decide(limiter, "m", "a");
        assertThat(a.refusedBy()).isEqualTo(Limit.POOL_REQUESTS);
        assertThat(a.sharing()).isNull();
    }
}
