package dev.llmratelimit.store;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.CallerCounter;
import dev.llmratelimit.engine.CallerPlan;
import dev.llmratelimit.engine.CallerScope;
import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.engine.Settlement;
import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static dev.llmratelimit.testsupport.Admits.admit;
import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Decisions and settlements whose answer never came are compensated once the store answers again:
 * a request refused without an answer (fail-closed) counts nothing, one served without an answer
 * (fail-open) counts once.
 */
class CompensatingAdmissionStoreTest {

    private final MutableClock clock = new MutableClock();
    private final MemoryAdmissionStore memory = new MemoryAdmissionStore(clock);
    private final StallingStore stalling = new StallingStore(memory);
    private final PendingCompensations pending = new PendingCompensations(100);
    private final CompensatingAdmissionStore store = new CompensatingAdmissionStore(stalling, pending, clock);
    private final CallerPlan caller = new CallerPlan(List.of(new CallerCounter(CallerScope.KEY, "sk-1", 0, 0, 4)),
            60_000, 600_000);

    @Test
    void slotsThatTimedOutDecisionsTookAreGivenBackBeforeTheNextDecision() {
        RateLimiter limiter = new RateLimiter(policy("models.m.rpm=100", "on-store-failure=fail-closed"), store);
        stalling.stalled = true;                       // every decision runs, but its answer is lost
        for (int i = 0; i < 6; i++) {
            assertThat(admit(limiter, "m", null, null, caller).outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_CLOSED);
        }
        assertThat(pending.size()).isEqualTo(6);
        stalling.stalled = false;

        Admission[] served = new Admission[4];
        for (int i = 0; i < 4; i++) {
            served[i] = admit(limiter, "m", null, null, caller);
            assertThat(served[i].outcome()).as("request %d", i).isEqualTo(Admission.Outcome.ADMITTED);
        }
        assertThat(admit(limiter, "m", null, null, caller).refusal().dimension()).isEqualTo(Dimension.PARALLEL_REQUESTS);
        assertThat(pending.size()).isZero();
        assertThat(pending.count(PendingCompensations.Fate.APPLIED)).isEqualTo(6);
        for (Admission admission : served) {
            admission.complete(new Usage(1, 1, 0));
        }
        Verdict model = admit(limiter, "m", null).verdict();
        assertThat(model.requestRemaining()).isEqualTo(100 - 4 - 1);     // the six refused decisions count nothing
    }

    @Test
    void requestsServedWithoutAnAnswerAreCountedOnceAndGiveTheirSlotsBack() {
        RateLimiter limiter = new RateLimiter(policy("models.m.rpm=100"), store);
        stalling.stalled = true;                       // every decision runs (4 take a slot, 2 are refused), answers lost
        Admission[] servedOpen = new Admission[6];
        for (int i = 0; i < 6; i++) {
            servedOpen[i] = admit(limiter, "m", null, null, caller);
            assertThat(servedOpen[i].outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_OPEN);
        }
        assertThat(pending.size()).isZero();           // nothing to cancel: they are served
        servedOpen[0].complete(new Usage(1, 1, 0));    // finished while the store is still away: queued
        assertThat(pending.size()).isEqualTo(1);
        stalling.stalled = false;
        for (int i = 1; i < 6; i++) {
            servedOpen[i].complete(new Usage(1, 1, 0));
        }

        Admission[] served = new Admission[4];
        for (int i = 0; i < 4; i++) {
            served[i] = admit(limiter, "m", null, null, caller);
            assertThat(served[i].outcome()).as("request %d", i).isEqualTo(Admission.Outcome.ADMITTED);
        }
        assertThat(admit(limiter, "m", null, null, caller).refusal().dimension()).isEqualTo(Dimension.PARALLEL_REQUESTS);
        assertThat(pending.count(PendingCompensations.Fate.APPLIED)).isEqualTo(1);
        for (Admission admission : served) {
            admission.complete(new Usage(1, 1, 0));
        }
        Verdict model = admit(limiter, "m", null).verdict();
        assertThat(model.requestRemaining()).isEqualTo(100 - 6 - 4 - 1);  // the six served without answer count too
    }

    @Test
    void aSettlementWithoutAnswerIsSentAgainAndAppliedOnce() {
        RateLimiter limiter = new RateLimiter(policy("models.m.tpm=1000", "token-admission=reserve"), store);
        Admission admission = admit(limiter, "m", null, null, 0, 400);
        stalling.stalled = true;
        admission.complete(new Usage(0, 100, 0));      // settles 100 of 400, but the answer is lost
        stalling.stalled = false;
        assertThat(pending.size()).isEqualTo(1);

        admit(limiter, "m", null, null, 0, 1).abort();   // the store answers: the settlement goes after it
        Admission probe = admit(limiter, "m", null, null, 0, 1);
        assertThat(probe.verdict().tokenRemaining()).isEqualTo(1000 - 100 - 1);   // applied once, not twice
        assertThat(pending.count(PendingCompensations.Fate.APPLIED)).isEqualTo(1);
    }

    @Test
    void aCompensationOlderThanItsLeaseIsDroppedAndCounted() {
        RateLimiter limiter = new RateLimiter(policy("models.m.rpm=100", "on-store-failure=fail-closed"), store);
        stalling.stalled = true;
        admit(limiter, "m", null, null, caller);
        stalling.stalled = false;
        clock.advance(Duration.ofMillis(600_000));
        assertThat(admit(limiter, "m", null, null, caller).outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(pending.count(PendingCompensations.Fate.EXPIRED)).isEqualTo(1);
        assertThat(pending.count(PendingCompensations.Fate.APPLIED)).isZero();
    }

    @Test
    void theQueueIsBoundedAndDropsTheOldest() {
        PendingCompensations small = new PendingCompensations(2);
        CompensatingAdmissionStore bounded = new CompensatingAdmissionStore(stalling, small, clock);
        RateLimiter limiter = new RateLimiter(policy("models.m.rpm=100", "on-store-failure=fail-closed"), bounded);
        stalling.stalled = true;
        for (int i = 0; i < 5; i++) {
            admit(limiter, "m", null, null, caller);
        }
        assertThat(small.size()).isEqualTo(2);
        assertThat(small.count(PendingCompensations.Fate.QUEUED)).isEqualTo(5);
        assertThat(small.count(PendingCompensations.Fate.DROPPED)).isEqualTo(3);
    }

    @Test
    void aRequestWaitsForOneUnansweredCallAtMostWhileTheQueueIsSent() {
        RateLimiter limiter = new RateLimiter(policy("models.m.rpm=1000", "on-store-failure=fail-closed"), store);
        stalling.stalled = true;
        for (int i = 0; i < CompensatingAdmissionStore.DRAIN_PER_CALL + 6; i++) {
            admit(limiter, "m", null, null, caller);
        }
        stalling.stalled = false;
        Admission answered = admit(limiter, "m", null);   // answered: 64 cancels sent after it, 6 still queued
        assertThat(answered.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(pending.size()).isEqualTo(6);

        stalling.stalled = true;
        int before = stalling.calls;
        Admission admission = admit(limiter, "m", null);
        assertThat(admission.outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_CLOSED);
        assertThat(stalling.calls - before).as("store calls of one request").isEqualTo(1);
        assertThat(pending.size()).isEqualTo(6);       // the decision never ran: nothing new to cancel
        before = stalling.calls;
        answered.abort();                              // the queue is sent first and fails: the settlement joins it
        assertThat(stalling.calls - before).as("store calls of one settlement").isEqualTo(1);
        assertThat(pending.size()).isEqualTo(7);

        stalling.stalled = false;
        Admission served = admit(limiter, "m", null);
        assertThat(served.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(pending.size()).isZero();
        assertThat(pending.count(PendingCompensations.Fate.APPLIED)).isEqualTo(CompensatingAdmissionStore.DRAIN_PER_CALL + 7);
    }

    @Test
    void aDecisionAskedAgainAfterRecoveryThatGetsNoAnswerIsCancelledToo() {
        RateLimiter limiter = new RateLimiter(policy("models.m.rpm=1", "on-store-failure=fail-closed"), store);
        stalling.stalled = true;
        admit(limiter, "m", null);                     // runs and takes the one request; the answer is lost
        stalling.stalled = false;
        // Refused by the lost decision's count; its cancel is sent; asked again, that answer is lost too.
        stalling.stallDecisionsFrom = stalling.decisions + 2;   // the next request's second decision
        assertThat(admit(limiter, "m", null).outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_CLOSED);
        assertThat(pending.size()).isEqualTo(1);
        stalling.stallDecisionsFrom = Integer.MAX_VALUE;

        Admission served = admit(limiter, "m", null);
        assertThat(served.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(pending.size()).isZero();
        assertThat(admit(limiter, "m", null).refusal().dimension()).isEqualTo(Dimension.REQUESTS);   // exactly 1 counted
    }

    @Test
    void aRefusalWhoseOwnCancelIsQueuedStandsEvenFailOpen() {
        RateLimiter limiter = new RateLimiter(policy("models.m.rpm=2", "on-store-failure=fail-open"), store);
        Admission first = admit(limiter, "m", null);
        assertThat(admit(limiter, "m", null).outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        stalling.stalled = true;
        first.complete(new Usage(1, 1, 0));             // its settlement is lost and queued: a settlement is owed
        stalling.stalled = false;
        assertThat(pending.size()).isEqualTo(1);

        // Refused by rpm, and the cancel of its other hash slots got no answer: the refusal stands,
        // that cancel is queued, and the queue goes with the next call (this one waited enough).
        stalling.refusalsUncancelled = true;
        int before = stalling.calls;
        Admission refused = admit(limiter, "m", null);
        stalling.refusalsUncancelled = false;
        assertThat(refused.outcome()).isEqualTo(Admission.Outcome.REFUSED);
        assertThat(refused.permitsCall()).isFalse();
        assertThat(refused.refusal().dimension()).isEqualTo(Dimension.REQUESTS);
        assertThat(stalling.calls - before).as("store calls of the refused request").isEqualTo(1);
        assertThat(pending.size()).isEqualTo(2);

        Admission next = admit(limiter, "m", null);
        assertThat(pending.size()).isZero();
        assertThat(pending.count(PendingCompensations.Fate.APPLIED)).isEqualTo(2);
        assertThat(next.refusal().current()).isEqualTo(2);      // the refused one counts nothing
    }

    /** A store whose commands run but whose answers are lost while stalled (a timeout). */
    private static final class StallingStore implements AdmissionStore {
        private final AdmissionStore delegate;
        volatile boolean stalled;
        volatile int calls;
        volatile int decisions;
        /** Decisions from this one on lose their answers too. */
        volatile int stallDecisionsFrom = Integer.MAX_VALUE;
        /** Refusals come as a refusal of a later hash slot whose earlier slots' cancel got no answer. */
        volatile boolean refusalsUncancelled;

        StallingStore(AdmissionStore delegate) {
            this.delegate = delegate;
        }

        @Override
        public Verdict decide(Plan plan) {
            calls++;
            Verdict verdict = delegate.decide(plan);
            decisions++;
            if (stalled || decisions >= stallDecisionsFrom) {
                throw new StoreUnavailableException("timed out", null);
            }
            if (refusalsUncancelled && !verdict.admitted()) {
                throw new UncancelledRefusalException(verdict, new StoreUnavailableException("cancel timed out", null));
            }
            return verdict;
        }

        @Override
        public void settle(Plan plan, Settlement settlement) {
            calls++;
            if (stalled) {
                throw new StoreUnavailableException("timed out", null);   // lost before it ran
            }
            delegate.settle(plan, settlement);
        }
    }
}
