package dev.llmratelimit.observe;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.ModelCounters;
import dev.llmratelimit.engine.PromptTokens;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.store.redis.RedisAdmissionStore;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.testsupport.RedisTestSettings;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;

import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The status page and the gauges show a model's counters as its next decision would see them: in a
 * sliding window the previous window weighted in, for the model and for every pool, after
 * settlements and refunds. Checked against the figures of the next decision itself.
 */
class SlidingSnapshotTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

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

    /** Redis on its own clock: the next decision's count lies between a snapshot before it and one after it. */
    @Test
    void theSnapshotOfASlidingWindowInRedisIsWhatTheNextDecisionCounts() throws InterruptedException {
        try (RedisAdmissionStore store = RedisAdmissionStore.create(RedisTestSettings.forAddress(REDIS.server().address()))) {
            RateLimiter redis = new RateLimiter(policy("models.r.rpm=100", "models.r.tpm=100000", "window=1s",
                    "window-mode=sliding", "token-admission=reserve"), store, clock, 600_000, List.of());
            for (int i = 0; i < 40; i++) {
                redis.admit(AdmissionRequest.of("r", null, null).withTokens(PromptTokens.known(900), 100))
                        .complete(new Usage(900, i % 4 == 0 ? 0 : 100, 0));
            }
            long end = System.currentTimeMillis() + redis.snapshot("r").remainingMillis();
            Thread.sleep(Math.max(0, end - System.currentTimeMillis()) + 300);      // 30 % into the next window
            ModelCounters before = redis.snapshot("r");
            assertThat(before.requests()).isBetween(1L, 39L);                          // weighted, not 0, not 40
            Admission next = redis.admit(AdmissionRequest.of("r", null, null).withTokens(PromptTokens.known(0), 100));
            ModelCounters after = redis.snapshot("r");
            long counted = 100 - next.verdict().requestRemaining() - 1;
            assertThat(counted).isBetween(after.requests() - 1, before.requests());
            long tokens = 100_000 - next.verdict().tokenRemaining() - 100;
            assertThat(tokens).isBetween(after.tokens() - 100, before.tokens());
        }
    }
}
