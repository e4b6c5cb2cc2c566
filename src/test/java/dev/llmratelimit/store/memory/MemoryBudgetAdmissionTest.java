package dev.llmratelimit.store.memory;

import dev.llmratelimit.budget.BudgetIdentity;
import dev.llmratelimit.budget.BudgetPolicy;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.BudgetExtension;
import dev.llmratelimit.engine.PromptTokens;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.store.BudgetAdmissionContract;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/** The budget contract on the memory store (one store shared by the instances, as in one JVM), and the period roll. */
class MemoryBudgetAdmissionTest extends BudgetAdmissionContract.OnAMovableClock {

    private final MemoryAdmissionStore store = new MemoryAdmissionStore(clock);

    @Override
    protected AdmissionStore store(int instance) {
        return store;
    }

    @Test
    void aNewPeriodStartsWithNothingSpent() {
        Map<String, String> props = properties("models.m.rpm=1000", "prices.m.input=1", "prices.m.output=1",
                "teams.t.budget=0.000100", "budget.period=PT5S", "budget.anchor=2026-01-01T00:00:00Z");
        RateLimiter limiter = new RateLimiter(PolicyParser.parse(props), store, clock, 600_000,
                List.of(new BudgetExtension(BudgetPolicy.parse(props), clock)));
        BudgetIdentity who = new BudgetIdentity("k", null, "t");
        AdmissionRequest request = AdmissionRequest.of("m", null, null).withIdentity(who)
                .withTokens(PromptTokens.known(50), 50);
        Admission first = limiter.admit(request);
        assertThat(first.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        first.complete(new Usage(50, 50, 0));
        Admission refused = limiter.admit(request);
        assertThat(refused.outcome()).isEqualTo(Admission.Outcome.REFUSED);
        assertThat(refused.verdict().retryAfterSeconds()).isEqualTo(5);
        assertThat(refused.refusal().group().window().periodEnd()).isEqualTo(1_767_225_605_000L);
        clock.advance(Duration.ofMillis(4_999));
        assertThat(limiter.admit(request).outcome()).isEqualTo(Admission.Outcome.REFUSED);
        clock.advance(Duration.ofMillis(1));
        Admission next = limiter.admit(request);
        assertThat(next.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(next.verdict().budget().remainingMicros()).isZero();
    }
}
