package dev.llmratelimit.engine;

import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.llmratelimit.testsupport.Admits.admit;

/** Caller limits beside model and pool limits in one decision, all or nothing. */
class CallerLimitsEngineTest {

    private final MutableClock clock = new MutableClock();

    private RateLimiter limiter(String... lines) {
        return new RateLimiter(policy(lines), new MemoryAdmissionStore(clock));
    }

    private static CallerPlan key(long rpm, long tpm, long parallel) {
        return new CallerPlan(List.of(new CallerCounter(CallerScope.KEY, "sk-1", rpm, tpm, parallel)), 60_000, 600_000);
    }

    @Test
    void aRefusalChangesNoModelOrPoolCounter() {
        RateLimiter limiter = limiter("models.m.rpm=10", "reservation.prod=0.3", "saturation-threshold=0");
        CallerPlan caller = key(2, 0, 0);
        assertThat(admit(limiter, "m", "prod", null, caller).outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(admit(limiter, "m", "prod", null, caller).outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        for (int i = 0; i < 5; i++) {
            Admission refused = admit(limiter, "m", "prod", null, caller);
            assertThat(refused.outcome()).isEqualTo(Admission.Outcome.REFUSED);
            assertThat(refused.verdict().refusedBy()).isNull();                // no model or pool limit
            assertThat(refused.refusal().group().kind()).isEqualTo(GroupKind.KEY);
            assertThat(refused.refusal().dimension()).isEqualTo(Dimension.REQUESTS);
            assertThat(refused.refusal().current()).isEqualTo(2);
            assertThat(refused.plan().pool()).isEqualTo("prod");
        }

        Verdict withoutCallerLimits = admit(limiter, "m", "prod", null, null).verdict();
        assertThat(withoutCallerLimits.saturation()).isEqualTo(0.2);        // the model counted 2 requests
        assertThat(withoutCallerLimits.requestLimit()).isEqualTo(3);        // the prod pool: 3 of 10
        assertThat(withoutCallerLimits.requestRemaining()).isEqualTo(0);    // ... of which 2 + this one are used
    }

    @Test
    void aModelOrPoolRefusalChangesNoCallerCounter() {
        RateLimiter limiter = limiter("models.m.rpm=10", "models.n.rpm=10", "models.m.reservation.prod=0.2",
                "saturation-threshold=0");
        CallerPlan caller = key(3, 0, 1);
        admit(limiter, "m", "prod", null, caller).abort();
        admit(limiter, "m", "prod", null, caller).abort();
        for (int i = 0; i < 4; i++) {
            Admission refused = admit(limiter, "m", "prod", null, caller);
            assertThat(refused.verdict().refusedBy()).isEqualTo(Limit.POOL_REQUESTS);
            assertThat(refused.refusal().group().kind()).isEqualTo(GroupKind.POOL);
        }

        Admission third = admit(limiter, "n", "prod", null, caller);           // request 3 of 3, and the slot is free
        assertThat(third.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        third.abort();
        Refusal refusal = admit(limiter, "n", "prod", null, caller).refusal();
        assertThat(refusal.dimension()).isEqualTo(Dimension.REQUESTS);
        assertThat(refusal.current()).isEqualTo(3);
    }

    @Test
    void aParallelSlotIsHeldUntilTheAdmissionFinishesAndGivenBackOnce() {
        RateLimiter limiter = limiter("models.m.rpm=100");
        CallerPlan caller = key(0, 0, 1);
        Admission first = admit(limiter, "m", null, null, caller);
        Refusal refusal = admit(limiter, "m", null, null, caller).refusal();
        assertThat(refusal.dimension()).isEqualTo(Dimension.PARALLEL_REQUESTS);
        assertThat(refusal.limit()).isEqualTo(1);
        assertThat(refusal.current()).isEqualTo(1);

        first.abort();
        first.abort();
        first.complete(new Usage(1, 1, 0));
        Admission second = admit(limiter, "m", null, null, caller);
        assertThat(second.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(admit(limiter, "m", null, null, caller).refusal().current()).isEqualTo(1);

        second.complete(new Usage(1, 1, 0));
        assertThat(admit(limiter, "m", null, null, caller).outcome()).isEqualTo(Admission.Outcome.ADMITTED);
    }

    @Test
    void completionRecordsTheTokensOnTheCallerAndTheModel() {
        RateLimiter limiter = limiter("models.m.tpm=1000", "rate-limit-type=total");
        CallerPlan caller = key(0, 100, 0);
        admit(limiter, "m", null, null, caller).complete(new Usage(70, 40, 10));     // 110: cached prompt tokens count against TPM

        Admission refused = admit(limiter, "m", null, null, caller);
        assertThat(refused.refusal().dimension()).isEqualTo(Dimension.TOKENS);
        assertThat(refused.refusal().current()).isEqualTo(110);
        assertThat(admit(limiter, "m", null, null, null).verdict().tokenRemaining()).isEqualTo(890);
    }

    @Test
    void callerLimitsApplyToAModelNobodyConfigured() {
        RateLimiter limiter = limiter("models.m.rpm=10");
        CallerPlan caller = key(1, 0, 0);
        Admission first = admit(limiter, "other", null, null, caller);
        assertThat(first.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(first.plan().groups()).extracting(CounterGroup::kind).containsExactly(GroupKind.KEY);
        first.complete(new Usage(10, 5, 0));
        Admission second = admit(limiter, "other", null, null, caller);
        assertThat(second.outcome()).isEqualTo(Admission.Outcome.REFUSED);
        assertThat(second.refusal().group().kind()).isEqualTo(GroupKind.KEY);
        assertThat(admit(limiter, "m", null, null, caller).outcome()).isEqualTo(Admission.Outcome.REFUSED);
        // without caller limits nothing applies to an unconfigured model: nothing is counted
        assertThat(admit(limiter, "other", null, null, null).outcome()).isEqualTo(Admission.Outcome.UNLIMITED);
    }

    @Test
    void shadowModeLetsARefusalThroughAndCountsNothingForIt() {
        RateLimiter limiter = limiter("models.m.rpm=10", "mode=shadow");
        CallerPlan caller = key(1, 0, 0);
        admit(limiter, "m", null, null, caller).abort();
        Admission wouldRefuse = admit(limiter, "m", null, null, caller);

        assertThat(wouldRefuse.permitsCall()).isTrue();
        assertThat(wouldRefuse.refusal().current()).isEqualTo(1);
        assertThat(admit(limiter, "m", null, null, null).verdict().saturation()).isEqualTo(0.1);
    }

    @Test
    void aFailingStoreAppliesOnStoreFailureToRequestsWithCallerLimits() {
        MemoryAdmissionStore memory = new MemoryAdmissionStore(clock);
        AdmissionStore failingWithCallers = new AdmissionStore() {
            @Override
            public Verdict decide(Plan plan) {
                if (plan.groups().size() > 2) {
                    throw new StoreUnavailableException("down", null);
                }
                return memory.decide(plan);
            }

            @Override
            public void settle(Plan plan, Settlement settlement) {
                memory.settle(plan, settlement);
            }
        };
        RateLimiter open = new RateLimiter(policy("models.m.rpm=10"), failingWithCallers);
        assertThat(admit(open, "m", null, null, key(1, 0, 0)).outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_OPEN);

        RateLimiter closed = new RateLimiter(policy("models.m.rpm=10", "on-store-failure=fail-closed"), failingWithCallers);
        Admission refused = admit(closed, "m", null, null, key(1, 0, 0));
        assertThat(refused.outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_CLOSED);
        assertThat(admit(closed, "m", null, null, null).verdict().saturation()).isEqualTo(0.0);
    }
}
