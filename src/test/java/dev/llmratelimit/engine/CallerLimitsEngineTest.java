package dev.llmratelimit.engine;

import dev.llmratelimit.store.memory.MemoryCallerLimitStore;
import dev.llmratelimit.store.memory.MemoryCounterStore;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

/** Caller limits beside model and pool limits in one decision, all or nothing. */
class CallerLimitsEngineTest {

    private final MutableClock clock = new MutableClock();

    private RateLimiter limiter(String... lines) {
        return new RateLimiter(policy(lines), new MemoryCounterStore(clock), new MemoryCallerLimitStore(clock));
    }

    private static CallerPlan key(long rpm, long tpm, long parallel) {
        return new CallerPlan(List.of(new CallerCounter(CallerScope.KEY, "sk-1", rpm, tpm, parallel)), 60_000, 600_000);
    }

    @Test
    void aCallerRefusalChangesNoModelOrPoolCounter() {
        RateLimiter limiter = limiter("models.m.rpm=10", "reservation.prod=0.3", "saturation-threshold=0");
        CallerPlan caller = key(2, 0, 0);
        assertThat(limiter.admit("m", "prod", null, caller).outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(limiter.admit("m", "prod", null, caller).outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        for (int i = 0; i < 5; i++) {
            Admission refused = limiter.admit("m", "prod", null, caller);
            assertThat(refused.outcome()).isEqualTo(Admission.Outcome.REFUSED);
            assertThat(refused.verdict()).isNull();
            assertThat(refused.callerRefusal().type()).isEqualTo(CallerLimitType.REQUESTS);
            assertThat(refused.callerRefusal().current()).isEqualTo(2);
            assertThat(refused.plan().pool()).isEqualTo("prod");
        }

        Verdict withoutCallerLimits = limiter.admit("m", "prod", null, null).verdict();
        assertThat(withoutCallerLimits.saturation()).isEqualTo(0.2);        // the model counted 2 requests
        assertThat(withoutCallerLimits.requestLimit()).isEqualTo(3);        // the prod pool: 3 of 10
        assertThat(withoutCallerLimits.requestRemaining()).isEqualTo(0);    // ... of which 2 + this one are used
    }

    @Test
    void aModelOrPoolRefusalChangesNoCallerCounter() {
        RateLimiter limiter = limiter("models.m.rpm=10", "models.n.rpm=10", "models.m.reservation.prod=0.2",
                "saturation-threshold=0");
        CallerPlan caller = key(3, 0, 1);
        limiter.admit("m", "prod", null, caller).abort();
        limiter.admit("m", "prod", null, caller).abort();
        for (int i = 0; i < 4; i++) {
            Admission refused = limiter.admit("m", "prod", null, caller);
            assertThat(refused.verdict().refusedBy()).isEqualTo(Limit.POOL_REQUESTS);
            assertThat(refused.callerRefusal()).isNull();
        }

        Admission third = limiter.admit("n", "prod", null, caller);           // request 3 of 3, and the slot is free
        assertThat(third.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        third.abort();
        CallerRefusal refusal = limiter.admit("n", "prod", null, caller).callerRefusal();
        assertThat(refusal.type()).isEqualTo(CallerLimitType.REQUESTS);
        assertThat(refusal.current()).isEqualTo(3);
    }

    @Test
    void aParallelSlotIsHeldUntilTheAdmissionFinishesAndGivenBackOnce() {
        RateLimiter limiter = limiter("models.m.rpm=100");
        CallerPlan caller = key(0, 0, 1);
        Admission first = limiter.admit("m", null, null, caller);
        CallerRefusal refusal = limiter.admit("m", null, null, caller).callerRefusal();
        assertThat(refusal.type()).isEqualTo(CallerLimitType.PARALLEL_REQUESTS);
        assertThat(refusal.limit()).isEqualTo(1);
        assertThat(refusal.current()).isEqualTo(1);

        first.abort();
        first.abort();
        first.complete(new Usage(1, 1, 0));
        Admission second = limiter.admit("m", null, null, caller);
        assertThat(second.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(limiter.admit("m", null, null, caller).callerRefusal().current()).isEqualTo(1);

        second.complete(new Usage(1, 1, 0));
        assertThat(limiter.admit("m", null, null, caller).outcome()).isEqualTo(Admission.Outcome.ADMITTED);
    }

    @Test
    void completionRecordsTheTokensOnTheCallerAndTheModel() {
        RateLimiter limiter = limiter("models.m.tpm=1000", "rate-limit-type=total");
        CallerPlan caller = key(0, 100, 0);
        limiter.admit("m", null, null, caller).complete(new Usage(70, 40, 10));

        Admission refused = limiter.admit("m", null, null, caller);
        assertThat(refused.callerRefusal().type()).isEqualTo(CallerLimitType.TOKENS);
        assertThat(refused.callerRefusal().current()).isEqualTo(100);
        assertThat(limiter.admit("m", null, null, null).verdict().tokenRemaining()).isEqualTo(900);
    }

    @Test
    void anUnconfiguredModelPassesCallerLimitsUntouched() {
        RateLimiter limiter = limiter("models.m.rpm=10");
        CallerPlan caller = key(1, 0, 0);
        assertThat(limiter.admit("other", null, null, caller).outcome()).isEqualTo(Admission.Outcome.UNLIMITED);
        assertThat(limiter.admit("other", null, null, caller).outcome()).isEqualTo(Admission.Outcome.UNLIMITED);
        assertThat(limiter.admit("m", null, null, caller).outcome()).isEqualTo(Admission.Outcome.ADMITTED);
    }

    @Test
    void shadowModeLetsACallerRefusalThroughAndCountsNothingForIt() {
        RateLimiter limiter = limiter("models.m.rpm=10", "mode=shadow");
        CallerPlan caller = key(1, 0, 0);
        limiter.admit("m", null, null, caller).abort();
        Admission wouldRefuse = limiter.admit("m", null, null, caller);

        assertThat(wouldRefuse.permitsCall()).isTrue();
        assertThat(wouldRefuse.callerRefusal().current()).isEqualTo(1);
        assertThat(limiter.admit("m", null, null, null).verdict().saturation()).isEqualTo(0.1);
    }

    @Test
    void aFailingCallerStoreAppliesOnStoreFailure() {
        CallerLimitStore failing = new CallerLimitStore() {
            @Override
            public CallerVerdict acquire(CallerPlan plan) {
                throw new StoreUnavailableException("down", null);
            }

            @Override
            public void release(CallerPlan plan, CallerHold hold) {
            }

            @Override
            public void record(CallerPlan plan, long tokens) {
            }

            @Override
            public void compensate(CallerPlan plan, CallerHold hold) {
            }
        };
        MemoryCounterStore openStore = new MemoryCounterStore(clock);
        RateLimiter open = new RateLimiter(policy("models.m.rpm=10"), openStore, failing);
        assertThat(open.admit("m", null, null, key(1, 0, 0)).outcome()).isEqualTo(Admission.Outcome.ADMITTED);

        RateLimiter closed = new RateLimiter(policy("models.m.rpm=10", "on-store-failure=fail-closed"),
                new MemoryCounterStore(clock), failing);
        Admission refused = closed.admit("m", null, null, key(1, 0, 0));
        assertThat(refused.outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_CLOSED);
        assertThat(closed.admit("m", null, null, null).verdict().saturation()).isEqualTo(0.0);
    }
}
