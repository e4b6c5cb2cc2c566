package dev.llmratelimit.observe;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.ModelCounters;
import dev.llmratelimit.engine.PromptTokens;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The status page and the gauges show a model's counters as its next decision would see them: in a
 * sliding window the previous window weighted in, for the model and for every pool, after
 * settlements and refunds. Checked against the figures of the next decision itself.
 */
class SlidingSnapshotAttackTest {

    private final MutableClock clock = new MutableClock();
    private final RateLimiter limiter = new RateLimiter(policy("models.m.rpm=100", "models.m.tpm=100000",
            "window=60s", "window-mode=sliding", "token-admission=reserve", "reservation.prod=0.5",
            "models.m.saturation-threshold=0.9"), new MemoryAdmissionStore(clock), clock, 600_000, List.of());

    private Admission admit(String pool, long prompt) {
        return limiter.admit(AdmissionRequest.of("m", pool, null).withTokens(PromptTokens.known(prompt), 100));
    }

    @Test
    void theSnapshotOfASlidingWindowIsWhatTheNextDecisionCounts() {
        for (int i = 0; i < 40; i++) {
            Admission admission = admit(i % 2 == 0 ? "prod" : null, 900);
            admission.complete(new Usage(900, i % 4 == 0 ? 0 : 100, 0));    // some refund part of the reservation
        }
        clock.advance(Duration.ofSeconds(78));                              // 30 % into the next window
        for (int i = 0; i < 5; i++) {
            admit("prod", 400);                                             // in flight: reserved, not settled
        }
        ModelCounters shown = limiter.snapshot("m");
        long effectiveRequests = 5 + (40 * 42_000 + 59_999) / 60_000;        // 5 + ceil(40 * 42 / 60) = 33
        assertThat(shown.requests()).isEqualTo(effectiveRequests);
        assertThat(shown.remainingMillis()).isEqualTo(42_000);

        Admission next = admit(null, 0);
        assertThat(next.verdict().requestRemaining()).isEqualTo(100 - shown.requests() - 1);
        assertThat(next.verdict().tokenRemaining()).isEqualTo(100_000 - shown.tokens() - 100);
        assertThat(limiter.groupsOf("m").saturation(shown)).isEqualTo(next.verdict().saturation());
    }
}
