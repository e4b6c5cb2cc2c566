package dev.llmratelimit.engine;

import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.CountingPromptTokens;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

/** A request that its request counters already refuse is refused before any tokenizer runs. */
class RefusalHintsTest {

    private final MutableClock clock = new MutableClock();
    private RateLimiter limiter = limiter("models.m.rpm=2");
    private final CallerPlan oneAtATime = new CallerPlan(List.of(new CallerCounter(CallerScope.KEY, "sk-1", 0, 0, 1)),
            60_000, 600_000);

    private RateLimiter limiter(String rpm) {
        return new RateLimiter(policy(rpm, "models.m.tpm=100000", "token-admission=reserve"),
                new MemoryAdmissionStore(clock), clock, 600_000, List.of());
    }

    private Admission admit(CountingPromptTokens prompt, CallerPlan callers) {
        return limiter.admit(AdmissionRequest.of("m", null, null).withCallers(callers).withTokens(prompt, 10));
    }

    @Test
    void aRefusalOnRequestsSparesTheTokenizerOfTheNextRequestsUntilTheWindowEnds() {
        CountingPromptTokens[] prompts = new CountingPromptTokens[6];
        for (int i = 0; i < prompts.length; i++) {
            prompts[i] = new CountingPromptTokens(50, 400);
        }
        assertThat(admit(prompts[0], null).outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(admit(prompts[1], null).outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(admit(prompts[2], null).refusal().dimension()).isEqualTo(Dimension.REQUESTS);   // no hint yet
        assertThat(admit(prompts[3], null).refusal().dimension()).isEqualTo(Dimension.REQUESTS);
        assertThat(admit(prompts[4], null).refusal().dimension()).isEqualTo(Dimension.REQUESTS);
        assertThat(new int[] {prompts[0].tokenizerRuns(), prompts[1].tokenizerRuns(), prompts[2].tokenizerRuns(),
                prompts[3].tokenizerRuns(), prompts[4].tokenizerRuns()}).containsExactly(1, 1, 1, 0, 0);

        clock.advance(Duration.ofMinutes(1));                                  // the window and its hint end
        Admission fresh = admit(prompts[5], null);
        assertThat(fresh.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(prompts[5].tokenizerRuns()).isEqualTo(1);
        assertThat(fresh.reservedTokens()).isEqualTo(60);
    }

    @Test
    void aSlotRefusalIsNotHintedSoTheNextRequestReservesItsCountedPrompt() {
        limiter = limiter("models.m.rpm=10");
        Admission holding = admit(new CountingPromptTokens(50, 400), oneAtATime);
        CountingPromptTokens refusedPrompt = new CountingPromptTokens(50, 400);
        assertThat(admit(refusedPrompt, oneAtATime).refusal().dimension()).isEqualTo(Dimension.PARALLEL_REQUESTS);
        holding.complete(new Usage(50, 10, 0));                                // the slot is free at once

        CountingPromptTokens next = new CountingPromptTokens(50, 400);
        Admission admitted = admit(next, oneAtATime);
        assertThat(admitted.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(next.tokenizerRuns()).isEqualTo(1);
        assertThat(admitted.reservedTokens()).isEqualTo(50 + 10);              // the count, not the bound
    }
}
