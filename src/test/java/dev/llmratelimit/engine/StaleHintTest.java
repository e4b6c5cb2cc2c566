package dev.llmratelimit.engine;

import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.CountingPromptTokens;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.usage.TokenCounter;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The refusal hints: a hint may spare a tokenizer run, but it must never make a request
 * that the exact counts admit get refused. With {@code token-admission=reserve} a stale slot hint
 * admits the next request of that caller with the free upper bound of its prompt (1.5 x the body's
 * bytes, about 6 x the tokens of English prose) as its reservation; until that call ends, the model's
 * TPM is short by the difference, for every caller.
 */
class StaleHintTest {

    private static final long PROMPT = 5_000;
    /** What the filter passes for a body of about 20 kB holding a 5,000-token prompt. */
    private static final long BOUND = TokenCounter.upperBound(20_000);
    private static final long OUTPUT = 100;

    private final MutableClock clock = new MutableClock();
    private final RateLimiter limiter = new RateLimiter(
            policy("models.m.rpm=1000", "models.m.tpm=40000", "token-admission=reserve"),
            new MemoryAdmissionStore(clock), clock, 600_000, List.of());
    private final CallerPlan aliceOneAtATime = new CallerPlan(
            List.of(new CallerCounter(CallerScope.KEY, "alice", 0, 0, 1)), 60_000, 600_000);

    private Admission admit(CallerPlan callers) {
        return limiter.admit(AdmissionRequest.of("m", null, null).withCallers(callers)
                .withTokens(new CountingPromptTokens(PROMPT, BOUND), OUTPUT));
    }

    @Test
    void aStaleSlotHintOfOneCallerDoesNotRefuseAnotherCallerThatTheCountsAdmit() {
        Admission first = admit(aliceOneAtATime);
        assertThat(first.reservedTokens()).isEqualTo(PROMPT + OUTPUT);
        assertThat(admit(aliceOneAtATime).refusal().dimension()).isEqualTo(Dimension.PARALLEL_REQUESTS);   // hint noted
        first.complete(new Usage(PROMPT, OUTPUT, 0));                        // alice's slot is free again

        Admission second = admit(aliceOneAtATime);                           // within the hint's second
        assertThat(second.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        // Counted exactly, the model now holds 2 x 5,100 tokens of 40,000; bob's 5,100 fit with room to spare.
        Admission bob = admit(null);
        assertThat(bob.outcome()).as("bob refused by %s while 10,200 of 40,000 tokens are in use",
                bob.refusal() == null ? null : bob.refusal().dimension() + " current " + bob.refusal().current())
                .isEqualTo(Admission.Outcome.ADMITTED);
    }
}
