package dev.llmratelimit.engine;

import dev.llmratelimit.store.memory.MemoryCallerLimitStore;
import dev.llmratelimit.store.memory.MemoryCounterStore;
import dev.llmratelimit.testsupport.MutableClock;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CallerSlotOnStoreFailureTest {

    @Test
    void anUnexpectedStoreExceptionGivesTheCallersParallelSlotBack() {
        MutableClock clock = new MutableClock();
        MemoryCounterStore memory = new MemoryCounterStore(clock);
        AtomicBoolean failOnce = new AtomicBoolean(true);
        CounterStore flaky = new CounterStore() {
            @Override
            public Verdict decide(DecisionPlan plan, long tokenEstimate) {
                if (failOnce.getAndSet(false)) {
                    throw new IllegalStateException("e.g. RedissonShutdownException / unexpected reply");
                }
                return memory.decide(plan, tokenEstimate);
            }

            @Override
            public void record(DecisionPlan plan, long tokens, long windowEnd) {
                memory.record(plan, tokens, windowEnd);
            }
        };
        RateLimiter limiter = new RateLimiter(policy("models.m.rpm=100"), flaky, new MemoryCallerLimitStore(clock));
        CallerPlan caller = new CallerPlan(List.of(new CallerCounter(CallerScope.KEY, "sk-1", 0, 0, 1)), 60_000, 600_000);

        assertThatThrownBy(() -> limiter.admit("m", null, null, caller)).isInstanceOf(IllegalStateException.class);
        // the filter let that request through unlimited and it has finished; the caller has nothing in flight
        assertThat(limiter.admit("m", null, null, caller).outcome()).isEqualTo(Admission.Outcome.ADMITTED);
    }
}
