package dev.llmratelimit.engine;

import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.List;

import static dev.llmratelimit.testsupport.Admits.admit;
import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** An observer that throws on settlement still leaves the request settled: its slot comes back once. */
class FailingObserverTest {

    private static final DecisionObserver THROWS_ON_RECORD = new DecisionObserver() {
        @Override
        public void recorded(Plan plan, Usage usage) {
            throw new IllegalStateException("observer bug");
        }
    };

    @Test
    void aSettlementWhoseObserverThrowsStillGivesTheSlotBack() {
        MemoryAdmissionStore store = new MemoryAdmissionStore();
        RateLimiter limiter = new RateLimiter(policy("models.m.rpm=100", "models.m.tpm=1000"), store, Clock.systemUTC(),
                RateLimiter.DEFAULT_LEASE_MILLIS, List.of(), THROWS_ON_RECORD);
        CallerPlan oneAtATime = new CallerPlan(List.of(new CallerCounter(CallerScope.KEY, "sk-1", 0, 0, 1)), 60_000, 600_000);

        for (int call = 0; call < 3; call++) {
            Admission admission = admit(limiter, "m", null, null, oneAtATime);
            assertThat(admission.outcome()).as("call %d", call).isEqualTo(Admission.Outcome.ADMITTED);
            Usage usage = new Usage(10, 20, 0);
            if (call == 2) {
                assertThatThrownBy(() -> admission.chargeAtLeastReserved(usage)).hasMessage("observer bug");
            } else {
                assertThatThrownBy(() -> admission.complete(usage)).hasMessage("observer bug");
            }
        }
        Verdict after = admit(limiter, "m", null, null, oneAtATime).verdict();
        assertThat(after.admitted()).isTrue();
        assertThat(after.remaining(Dimension.TOKENS)).isEqualTo(1000 - 3 * 30);
    }
}
