package dev.llmratelimit.engine;

import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.CountingPromptTokens;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.Test;

import static dev.llmratelimit.engine.AdmissionRequest.UNKNOWN_OUTPUT;
import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.llmratelimit.testsupport.Admits.admit;

/** What {@code token-admission=reserve} reserves, and what the call's end does with it. */
class TokenEstimateTest {

    private RateLimiter limiter(String... lines) {
        return new RateLimiter(policy(lines), new MemoryAdmissionStore(new MutableClock()));
    }

    /** Tokens counted for model m: the remaining tokens seen by a 1-token probe that is then refunded. */
    private static long used(RateLimiter limiter) {
        Admission probe = admit(limiter, "m", null, null, 0, 1);
        long used = limiter.policy().model("m").tpm() - 1 - probe.verdict().tokenRemaining();
        probe.abort();
        return used;
    }

    @Test
    void theEstimateIsPromptPlusMaxTokensOrTheExpectedOutput() {
        RateLimiter limiter = limiter("models.m.tpm=100000", "token-admission=reserve");
        CountingPromptTokens prompt = new CountingPromptTokens(120, 480);
        assertThat(limiter.admit(AdmissionRequest.of("m", null, null).withTokens(prompt, 30)).reservedTokens()).isEqualTo(150);
        assertThat(prompt.tokenizerRuns()).isEqualTo(1);
        assertThat(admit(limiter, "m", null, null, 120, 30).reservedTokens()).isEqualTo(150);
        assertThat(admit(limiter, "m", null, null, 120, UNKNOWN_OUTPUT).reservedTokens()).isEqualTo(120 + 256);
        assertThat(admit(limiter, "m", null, null, 0, 0).reservedTokens()).isEqualTo(1);          // at least 1
        assertThat(admit(limiter, "m", null).reservedTokens()).isEqualTo(256);
    }

    @Test
    void rateLimitTypeAppliesToTheEstimate() {
        RateLimiter input = limiter("models.m.tpm=1000", "token-admission=reserve", "rate-limit-type=input");
        assertThat(admit(input, "m", null, null, 120, 30).reservedTokens()).isEqualTo(120);
        RateLimiter output = limiter("models.m.tpm=1000", "token-admission=reserve", "rate-limit-type=output");
        CountingPromptTokens unused = new CountingPromptTokens(120, 480);
        Admission withoutPrompt = output.admit(AdmissionRequest.of("m", null, null).withTokens(unused, 30));
        assertThat(withoutPrompt.reservedTokens()).isEqualTo(30);
        withoutPrompt.abort();
        assertThat(unused.tokenizerRuns()).isZero();                               // the prompt does not count
        assertThat(admit(output, "m", null, null, 120, 30).reservedTokens()).isEqualTo(30);

        Admission admission = admit(output, "m", null, null, 0, 30);
        admission.complete(new Usage(500, 45, 0));                                 // only completion counts
        assertThat(used(output)).isEqualTo(30 + 45);
    }

    @Test
    void expectedOutputStartsAtTheConfiguredValueAndMovesAnEighthTowardsEachResponse() {
        RateLimiter limiter = limiter("models.m.tpm=100000", "models.n.tpm=100000", "token-admission=reserve",
                "expected-output-tokens=200", "models.n.expected-output-tokens=50");
        assertThat(admit(limiter, "n", null, null, 10, UNKNOWN_OUTPUT).reservedTokens()).isEqualTo(60);

        Admission first = admit(limiter, "m", null, null, 10, UNKNOWN_OUTPUT);
        assertThat(first.reservedTokens()).isEqualTo(210);
        first.complete(new Usage(10, 40, 0));                                       // 200 + (40 - 200) / 8 = 180
        Admission second = admit(limiter, "m", null, null, 10, UNKNOWN_OUTPUT);
        assertThat(second.reservedTokens()).isEqualTo(190);
        second.complete(new Usage(10, 101, 0));                                     // 180 - 79 / 8 = 170.125
        assertThat(admit(limiter, "m", null, null, 0, UNKNOWN_OUTPUT).reservedTokens()).isEqualTo(171);

        // Responses to requests that set max_tokens, and cut streams, teach it nothing.
        admit(limiter, "m", null, null, 10, 5000).complete(new Usage(10, 4000, 0));
        admit(limiter, "m", null, null, 10, UNKNOWN_OUTPUT).charge(new Usage(10, 1, 0));
        assertThat(admit(limiter, "m", null, null, 0, UNKNOWN_OUTPUT).reservedTokens()).isEqualTo(171);
        assertThat(admit(limiter, "n", null, null, 0, UNKNOWN_OUTPUT).reservedTokens()).isEqualTo(50);
    }

    @Test
    void aResponseOfSeveralChoicesTeachesItsMeanPerChoice() {
        RateLimiter limiter = limiter("models.m.tpm=100000", "token-admission=reserve", "expected-output-tokens=100");
        Admission four = limiter.admit(AdmissionRequest.of("m", null, null)
                .withTokens(PromptTokens.known(10), UNKNOWN_OUTPUT).withChoices(4));
        assertThat(four.reservedTokens()).isEqualTo(10 + 4 * 100);
        four.complete(new Usage(10, 4 * 180, 0));                                  // 180 per choice: 100 + 80 / 8 = 110
        assertThat(admit(limiter, "m", null, null, 0, UNKNOWN_OUTPUT).reservedTokens()).isEqualTo(110);
        assertThat(limiter.admit(AdmissionRequest.of("m", null, null).withTokens(PromptTokens.known(0), UNKNOWN_OUTPUT)
                .withChoices(4)).reservedTokens()).isEqualTo(4 * 110);
    }

    @Test
    void howTheCallEndsDecidesWhatStaysCounted() {
        RateLimiter limiter = limiter("models.m.tpm=10000", "token-admission=reserve");
        admit(limiter, "m", null, null, 100, 100).complete(new Usage(100, 30, 20));     // 110 counts
        assertThat(used(limiter)).isEqualTo(110);
        admit(limiter, "m", null, null, 100, 100).abort();                               // failed: refunded
        assertThat(used(limiter)).isEqualTo(110);
        admit(limiter, "m", null, null, 100, 100).chargeAtLeastReserved(new Usage(100, 20, 0)); // no usage: estimate kept
        assertThat(used(limiter)).isEqualTo(310);
        admit(limiter, "m", null, null, 100, 100).chargeAtLeastReserved(new Usage(100, 150, 0)); // more written than reserved
        assertThat(used(limiter)).isEqualTo(560);
        Admission cut = admit(limiter, "m", null, null, 100, 100);
        cut.charge(new Usage(100, 7, 0));                                               // a cut stream
        cut.abort();                                                                    // already finished
        assertThat(used(limiter)).isEqualTo(667);
    }

    @Test
    void recordedModeReservesNothingAndCountsNoPrompt() {
        RateLimiter limiter = limiter("models.m.tpm=1000");
        CountingPromptTokens prompt = new CountingPromptTokens(400, 1600);
        Admission admission = limiter.admit(AdmissionRequest.of("m", null, null).withTokens(prompt, 400));
        assertThat(prompt.tokenizerRuns()).isZero();
        assertThat(admission.reservedTokens()).isZero();
        assertThat(admission.verdict().tokenRemaining()).isEqualTo(1000);
        admission.chargeAtLeastReserved(new Usage(0, 0, 0));
        assertThat(admit(limiter, "m", null).verdict().tokenRemaining()).isEqualTo(1000);
    }

    @Test
    void aModelWithoutTpmReservesNothing() {
        RateLimiter limiter = limiter("models.m.rpm=10", "token-admission=reserve");
        CountingPromptTokens prompt = new CountingPromptTokens(400, 1600);
        assertThat(limiter.admit(AdmissionRequest.of("m", null, null).withTokens(prompt, 400)).reservedTokens()).isZero();
        assertThat(prompt.tokenizerRuns()).isZero();
    }
}
