package dev.llmratelimit.engine;

import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.llmratelimit.testsupport.Admits.admit;

/** {@code window-mode=sliding} to the millisecond, on a clock the test moves. */
class SlidingWindowTest {

    private final MutableClock clock = new MutableClock();

    private RateLimiter limiter(String... lines) {
        return new RateLimiter(policy(lines), new MemoryAdmissionStore(clock));
    }

    private int admitUntilRefused(RateLimiter limiter, String priority) {
        int admitted = 0;
        while (admit(limiter, "m", priority).outcome() == Admission.Outcome.ADMITTED) {
            admitted++;
        }
        return admitted;
    }

    private void advance(long millis) {
        clock.advance(Duration.ofMillis(millis));
    }

    @Test
    void theRefusalClearsExactlyAtItsRetryTime() {
        RateLimiter limiter = limiter("models.m.rpm=100", "window-mode=sliding");
        assertThat(admitUntilRefused(limiter, null)).isEqualTo(100);               // the window starts here
        advance(61_000);                                                            // 59 s of it still count
        assertThat(admitUntilRefused(limiter, null)).isEqualTo(1);                 // ceil(100 * 59/60) = 99
        Verdict refused = admit(limiter, "m", null).verdict();
        // 1 + ceil(100 * left / 60 s) <= 99 once left <= 58.8 s, 200 ms from now
        assertThat(refused.resetMillis()).isEqualTo(200);
        assertThat(refused.retryAfterSeconds()).isEqualTo(1);
        advance(199);
        assertThat(admit(limiter, "m", null).outcome()).isEqualTo(Admission.Outcome.REFUSED);
        advance(1);
        assertThat(admit(limiter, "m", null).outcome()).isEqualTo(Admission.Outcome.ADMITTED);
    }

    @Test
    void aRefusalThatOutlastsTheWindowSaysSo() {
        RateLimiter limiter = limiter("models.m.rpm=10", "window-mode=sliding");
        assertThat(admitUntilRefused(limiter, null)).isEqualTo(10);
        advance(15_000);
        Verdict refused = admit(limiter, "m", null).verdict();
        // 10 requests fall to 9 only 6 s into the next window: 45 s + 6 s
        assertThat(refused.resetMillis()).isEqualTo(51_000);
        advance(50_999);
        assertThat(admit(limiter, "m", null).outcome()).isEqualTo(Admission.Outcome.REFUSED);
        advance(1);
        assertThat(admit(limiter, "m", null).outcome()).isEqualTo(Admission.Outcome.ADMITTED);
    }

    @Test
    void afterAGapLongerThanTheSpanTheWindowStartsAfresh() {
        RateLimiter limiter = limiter("models.m.rpm=10", "window-mode=sliding");
        assertThat(admitUntilRefused(limiter, null)).isEqualTo(10);
        advance(120_000);
        Verdict first = admit(limiter, "m", null).verdict();
        assertThat(first.requestRemaining()).isEqualTo(9);
        assertThat(first.resetMillis()).isEqualTo(60_000);
    }

    @Test
    void aPoolRefusalClearsWhenTheModelIsNoLongerSaturated() {
        RateLimiter limiter = limiter("models.m.rpm=100", "window-mode=sliding",
                "reservation.prod=0.9", "reservation.dev=0.1", "saturation-threshold=0.5");
        assertThat(admitUntilRefused(limiter, "dev")).isEqualTo(50);               // generous up to 50 %
        advance(60_000);                                                             // all 50 still count
        Verdict dev = admit(limiter, "m", "dev").verdict();
        assertThat(dev.refusedBy()).isEqualTo(Limit.POOL_REQUESTS);
        // dev's own 10 would need 50 to fall to 9 (49.2 s); saturation falls below 0.5 once 50 fall to 49: 1.2 s
        assertThat(dev.resetMillis()).isEqualTo(1_200);
        advance(1_200);
        assertThat(admit(limiter, "m", "dev").outcome()).isEqualTo(Admission.Outcome.ADMITTED);
    }

    @Test
    void fixedWindowsStayTheDefault() {
        RateLimiter limiter = limiter("models.m.rpm=100");
        assertThat(admitUntilRefused(limiter, null)).isEqualTo(100);
        advance(60_000);
        assertThat(admitUntilRefused(limiter, null)).isEqualTo(100);
    }
}
