package dev.llmratelimit.store;

import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.Enforcement;
import dev.llmratelimit.engine.GroupKind;
import dev.llmratelimit.engine.GroupWindow;
import dev.llmratelimit.engine.Increments;
import dev.llmratelimit.engine.Limits;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.Settlement;
import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.engine.UsageCost;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.Plans;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A stop that begins while a decision is under way in a store that outlives the JVM: the decision's
 * answer comes during the grace period, and what it admitted is settled like any call in flight, so
 * the caller's one parallel slot is free after the stop. Over the memory store, which ends with the
 * JVM, the stop tracks and waits for nothing. A decision never settled is held for its lease only.
 */
class OutstandingAdmissionsTest {

    @Test
    void aDecisionUnderWayWhenTheStopBeginsIsSettledByTheStop() throws Exception {
        MemoryAdmissionStore memory = new MemoryAdmissionStore();
        Plan oneSlot = Plans.modelPlan("m", "default", 0, 0, 0, 0, false, 1.0, 60_000, false, 0,
                Plans.caller(GroupKind.KEY, "sk-a", 0, 0, 1, 60_000));
        CountDownLatch inStore = new CountDownLatch(1);
        CountDownLatch answer = new CountDownLatch(1);
        AdmissionStore slowOnce = new AdmissionStore() {             // the memory store, answering oneSlot late
            @Override
            public Verdict decide(Plan plan) {
                if (plan.requestId().equals(oneSlot.requestId())) {
                    inStore.countDown();
                    await(answer);
                }
                return memory.decide(plan);
            }

            @Override
            public void settle(Plan plan, Settlement settlement) {
                memory.settle(plan, settlement);
            }
        };
        OutstandingAdmissions outstanding = new OutstandingAdmissions(slowOnce);
        CompletableFuture<Verdict> deciding = CompletableFuture.supplyAsync(() -> outstanding.decide(oneSlot));
        inStore.await();
        CompletableFuture<Integer> stopped = CompletableFuture.supplyAsync(() -> outstanding.stop(Duration.ofMillis(300)));
        while (!refusedAsStopping(outstanding)) {
            Thread.onSpinWait();
        }
        answer.countDown();

        assertThat(deciding.get().admitted()).isTrue();              // the call goes ahead, its slot taken
        assertThat(stopped.get()).isEqualTo(1);                      // and the stop settled it
        assertThat(outstanding.size()).isZero();
        assertThat(memory.decide(Plans.again(oneSlot)).admitted()).isTrue();   // the slot is free again
    }

    @Test
    void overTheMemoryStoreNothingIsTrackedAndTheStopOnlyRefusesNewDecisions() {
        MemoryAdmissionStore memory = new MemoryAdmissionStore();
        OutstandingAdmissions outstanding = new OutstandingAdmissions(memory);
        Plan oneSlot = Plans.modelPlan("m", "default", 0, 0, 0, 0, false, 1.0, 60_000, false, 0,
                Plans.caller(GroupKind.KEY, "sk-a", 0, 0, 1, 60_000));

        assertThat(outstanding.decide(oneSlot).admitted()).isTrue();
        assertThat(outstanding.size()).isZero();                     // the counters end with this JVM
        assertThat(outstanding.stop(Duration.ofHours(1))).isZero();  // nothing to wait for or settle
        assertThat(refusedAsStopping(outstanding)).isTrue();
        outstanding.settle(oneSlot, Settlement.of(0, 0));            // a call in flight still settles its slot
        assertThat(memory.decide(Plans.again(oneSlot)).admitted()).isTrue();
    }

    @Test
    void aDecisionNeverSettledIsForgottenAfterItsLeaseOrWithABudgetAfterTheDayItIsChargedAndItsLateSettlementStillGoesThrough() {
        MemoryAdmissionStore memory = new MemoryAdmissionStore();
        List<String> settled = new ArrayList<>();
        OutstandingAdmissions outstanding = new OutstandingAdmissions(new AdmissionStore() {
            @Override
            public Verdict decide(Plan plan) {
                return memory.decide(plan);
            }

            @Override
            public void settle(Plan plan, Settlement settlement) {
                settled.add(plan.requestId());
                memory.settle(plan, settlement);
            }
        });
        Plan forgotten = Plans.modelPlan("m", "default", 0, 0, 0, 0, false, 1.0, 60_000, false, 0);   // lease 600 s
        Plan budgeted = new Plan(Plans.newRequestId(), "m", "", List.of(new CounterGroup(GroupKind.BUDGET, "t:team",
                "", GroupWindow.period("p", 864_000_000L), new Limits(Limits.NONE, Limits.NONE, Limits.NONE, 1_000_000),
                Enforcement.ALWAYS, new Increments(0, 0, 100, false))), 600_000, UsageCost.FREE);
        Plan second = Plans.again(forgotten);
        Plan third = Plans.again(forgotten);
        Clock clock = Clock.systemUTC();

        assertThat(outstanding.decide(forgotten, clock, 1_000).admitted()).isTrue();
        assertThat(outstanding.decide(budgeted, clock, 1_000).admitted()).isTrue();
        assertThat(outstanding.decide(second, clock, 400_000).admitted()).isTrue();
        assertThat(outstanding.size()).isEqualTo(3);
        long leaseAndMargin = 1_000 + 600_000 + OutstandingAdmissions.FORGET_EVERY_MILLIS;
        assertThat(outstanding.decide(third, clock, leaseAndMargin).admitted()).isTrue();
        assertThat(outstanding.size()).isEqualTo(3);                 // the first is gone; the budget database still charges the budgeted one

        outstanding.settle(forgotten, Settlement.of(0, 0));          // its own settlement, however late, goes through
        assertThat(outstanding.stop(Duration.ZERO)).isEqualTo(3);    // the stop settles the other three
        assertThat(settled).containsExactlyInAnyOrder(forgotten.requestId(), budgeted.requestId(), second.requestId(),
                third.requestId());
    }

    /** Whether a decision of another model is refused because the stop began (else it is settled at once). */
    private static boolean refusedAsStopping(OutstandingAdmissions outstanding) {
        Plan other = Plans.modelPlan("other", "default", 0, 0, 0, 0, false, 1.0, 60_000, false, 0);
        try {
            outstanding.decide(other);
        } catch (StoreUnavailableException e) {
            return e.stopping();
        }
        outstanding.settle(other, Settlement.of(0, 0));
        return false;
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
