package dev.llmratelimit.engine;

import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.MutableClock;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static dev.llmratelimit.testsupport.Admits.admit;

class CallerSlotOnStoreFailureTest {

    @Test
    void anUnexpectedStoreExceptionGivesTheCallersParallelSlotBack() {
        MutableClock clock = new MutableClock();
        MemoryAdmissionStore memory = new MemoryAdmissionStore(clock);
        AtomicBoolean failOnce = new AtomicBoolean(true);
        AdmissionStore flaky = new AdmissionStore() {
            @Override
            public Verdict decide(Plan plan) {
                Verdict verdict = memory.decide(plan);
                if (failOnce.getAndSet(false)) {       // the store applied the plan, then failed to answer
                    throw new IllegalStateException("e.g. RedissonShutdownException / unexpected reply");
                }
                return verdict;
            }

            @Override
            public void settle(Plan plan, Settlement settlement) {
                memory.settle(plan, settlement);
            }
        };
        RateLimiter limiter = new RateLimiter(policy("models.m.rpm=100"), flaky);
        CallerPlan caller = new CallerPlan(List.of(new CallerCounter(CallerScope.KEY, "sk-1", 0, 0, 1)), 60_000, 600_000);

        assertThatThrownBy(() -> admit(limiter, "m", null, null, caller)).isInstanceOf(IllegalStateException.class);
        // the filter let that request through unlimited and it has finished; the caller has nothing in flight
        assertThat(admit(limiter, "m", null, null, caller).outcome()).isEqualTo(Admission.Outcome.ADMITTED);
    }
}
