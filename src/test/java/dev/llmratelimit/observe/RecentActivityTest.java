package dev.llmratelimit.observe;

import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.testsupport.Policies;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The status page's history: decisions by the 30-second bucket of their time, counted exactly from many threads. */
class RecentActivityTest {

    private final MutableClock clock = new MutableClock(1_800_000_000_000L);   // a bucket's start
    private final RecentActivity recent = new RecentActivity(clock);

    private RateLimiter limiter(String rpm) {
        return new RateLimiter(Policies.policy("models.m.rpm=" + rpm), new MemoryAdmissionStore(clock), clock,
                RateLimiter.DEFAULT_LEASE_MILLIS, List.of(), recent);
    }

    @Test
    void decisionsGoToTheBucketOfTheirTimeWithTheLimitThatRefused() {
        RateLimiter limiter = limiter("3");
        for (int i = 0; i < 5; i++) {
            limiter.admit(AdmissionRequest.of("m", null, null)).abort();
        }
        clock.advance(Duration.ofSeconds(30));
        limiter.admit(AdmissionRequest.of("m", null, null)).abort();    // the minute window is still full

        List<RecentActivity.Point> history = recent.history("m");
        RecentActivity.Point before = history.get(history.size() - 2);
        RecentActivity.Point now = history.get(history.size() - 1);
        assertThat(history).hasSize(60);
        assertThat(before.startMillis()).isEqualTo(1_800_000_000_000L);
        assertThat(before.admitted()).isEqualTo(3);
        assertThat(before.refused()).isEqualTo(2);
        assertThat(before.refusedBy()).isEqualTo(Map.of("model_requests", 2L));
        assertThat(now.admitted()).isZero();
        assertThat(now.refused()).isEqualTo(1);
        assertThat(recent.refusedWithin("m", 60_000)).isEqualTo(Map.of("model_requests", 3L));
    }

    @Test
    void aRefusalByALimitOfAFurtherWindowIsShownWithTheWindow() {
        RateLimiter limiter = new RateLimiter(Policies.policy("models.m.rpm=10", "models.m.limits.tokens.30d=5"),
                new MemoryAdmissionStore(clock), clock, RateLimiter.DEFAULT_LEASE_MILLIS, List.of(), recent);
        limiter.admit(AdmissionRequest.of("m", null, null)).complete(new Usage(3, 2, 0));
        limiter.admit(AdmissionRequest.of("m", null, null)).abort();     // the month's 5 tokens are used

        assertThat(recent.refusedWithin("m", 60_000)).isEqualTo(Map.of("model_tokens_30d", 1L));
    }

    @Test
    void aBucketReusedHalfAnHourLaterStartsEmpty() {
        RateLimiter limiter = limiter("1000");
        limiter.admit(AdmissionRequest.of("m", null, null)).abort();
        clock.advance(Duration.ofMinutes(30));
        limiter.admit(AdmissionRequest.of("m", null, null)).abort();

        List<RecentActivity.Point> history = recent.history("m");
        assertThat(history.stream().mapToLong(RecentActivity.Point::admitted).sum()).isEqualTo(1);
        assertThat(history.get(59).admitted()).isEqualTo(1);
    }

    @Test
    void eightThreadsAreCountedExactly() throws Exception {
        RateLimiter limiter = limiter("100000");
        ExecutorService threads = Executors.newFixedThreadPool(8);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            done.add(threads.submit(() -> {
                for (int i = 0; i < 2_000; i++) {
                    limiter.admit(AdmissionRequest.of("m", null, null)).abort();
                }
            }));
        }
        for (Future<?> future : done) {
            future.get(60, TimeUnit.SECONDS);
        }
        threads.shutdown();

        List<RecentActivity.Point> history = recent.history("m");
        assertThat(history.get(59).admitted()).isEqualTo(16_000);
        assertThat(history.get(59).refused()).isZero();
    }
}
