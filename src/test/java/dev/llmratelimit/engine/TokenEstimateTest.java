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

    private final MutableClock clock = new MutableClock();

    private RateLimiter limiter(String... lines) {
        return new RateLimiter(policy(lines), new MemoryAdmissionStore(clock), clock, RateLimiter.DEFAULT_LEASE_MILLIS,
                java.util.List.of());
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
                "expected-output-tokens=200", "models.n.expected-output-tokens=50", "expected-output-min-tokens=0");
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
        assertThat(admit(limiter, "m", null, null, 0, UNKNOWN_OUTPUT).reservedTokens()).isEqualTo(180); // the window's mean
        clock.advance(java.time.Duration.ofSeconds(121));                           // two windows later: the average
        assertThat(admit(limiter, "m", null, null, 0, UNKNOWN_OUTPUT).reservedTokens()).isEqualTo(110);
        assertThat(limiter.admit(AdmissionRequest.of("m", null, null).withTokens(PromptTokens.known(0), UNKNOWN_OUTPUT)
                .withChoices(4)).reservedTokens()).isEqualTo(4 * 110);
    }

    /** Teaches the expectation of model m in a pool: {@code count} responses of {@code tokens} completion tokens. */
    private static void answers(RateLimiter limiter, String priority, int count, long tokens) {
        for (int i = 0; i < count; i++) {
            admit(limiter, "m", priority, null, 10, UNKNOWN_OUTPUT).complete(new Usage(10, tokens, 0));
        }
    }

    private static long expected(RateLimiter limiter, String priority) {
        Admission probe = admit(limiter, "m", priority, null, 0, UNKNOWN_OUTPUT);
        probe.abort();
        return probe.reservedTokens();
    }

    @Test
    void shortAnswersCannotTalkTheExpectationBelowTheConfiguredMinimum() {
        RateLimiter byDefault = limiter("models.m.tpm=1000000", "token-admission=reserve");
        answers(byDefault, null, 40, 1);
        assertThat(expected(byDefault, null)).isEqualTo(256);              // the minimum is expected-output-tokens

        RateLimiter lowered = limiter("models.m.tpm=1000000", "token-admission=reserve", "expected-output-min-tokens=64");
        answers(lowered, null, 40, 1);
        clock.advance(java.time.Duration.ofSeconds(121));                    // past the window floors
        assertThat(expected(lowered, null)).isEqualTo(64);
    }

    @Test
    void eachPoolLearnsItsOwnExpectation() {
        RateLimiter limiter = limiter("models.m.tpm=1000000", "token-admission=reserve", "reservation.prod=0.5",
                "expected-output-min-tokens=0");
        answers(limiter, null, 40, 1);                                      // anonymous callers: the default pool
        answers(limiter, "prod", 3, 1_000);
        clock.advance(java.time.Duration.ofSeconds(121));
        assertThat(expected(limiter, null)).isEqualTo(3);                   // 1 + 255 * (7/8)^40 = 2.2, rounded up
        assertThat(expected(limiter, "prod")).isEqualTo(502);               // 1000 - 744 * (7/8)^3 = 501.6
    }

    @Test
    void theExpectationIsNeverBelowTheMeanOfThePoolsAnswersInTheLastWindow() {
        RateLimiter limiter = limiter("models.m.tpm=1000000", "token-admission=reserve", "expected-output-min-tokens=0");
        answers(limiter, null, 10, 500);
        answers(limiter, null, 30, 1);                                      // steering after long answers
        assertThat(expected(limiter, null)).isEqualTo(126);                 // (10 * 500 + 30) / 40 = 125.75
        clock.advance(java.time.Duration.ofSeconds(61));
        assertThat(expected(limiter, null)).isEqualTo(126);                 // the last window's mean still holds
        clock.advance(java.time.Duration.ofSeconds(60));
        assertThat(expected(limiter, null)).isEqualTo(9);                   // a window without answers: the average, 8.9
    }

    @Test
    void howTheCallEndsDecidesWhatStaysCounted() {
        RateLimiter limiter = limiter("models.m.tpm=10000", "token-admission=reserve");
        admit(limiter, "m", null, null, 100, 100).complete(new Usage(100, 30, 20));     // 130 counts: cached too
        assertThat(used(limiter)).isEqualTo(130);
        admit(limiter, "m", null, null, 100, 100).abort();                               // failed: refunded
        assertThat(used(limiter)).isEqualTo(130);
        admit(limiter, "m", null, null, 100, 100).chargeAtLeastReserved(new Usage(100, 20, 0)); // no usage: estimate kept
        assertThat(used(limiter)).isEqualTo(330);
        admit(limiter, "m", null, null, 100, 100).chargeAtLeastReserved(new Usage(100, 150, 0)); // more written than reserved
        assertThat(used(limiter)).isEqualTo(580);
        Admission cut = admit(limiter, "m", null, null, 100, 100);
        cut.charge(new Usage(100, 7, 0));                                               // a cut stream
        cut.abort();                                                                    // already finished
        assertThat(used(limiter)).isEqualTo(687);
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
