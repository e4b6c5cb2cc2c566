package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.CallerCounter;
import dev.llmratelimit.engine.CallerPlan;
import dev.llmratelimit.engine.CallerScope;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.testsupport.StartTogether;
import dev.llmratelimit.testsupport.RedisTestSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static dev.llmratelimit.testsupport.Admits.admit;
import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

/** Four instances (each its own Redisson client and engine) with 16 threads each against max-parallel-requests=8. */
class RedisCallerParallelTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final int INSTANCES = 4;
    private static final int THREADS = 16;
    private static final int CALLS_PER_THREAD = 5;
    private static final int MAX_PARALLEL = 8;

    @Test
    void neverMoreThanTheLimitInFlightAcrossInstances() throws Exception {
        CallerPlan plan = new CallerPlan(List.of(new CallerCounter(CallerScope.KEY, "sk-batch", 0, 0, MAX_PARALLEL)),
                60_000, 600_000);
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger maxInFlight = new AtomicInteger();
        AtomicInteger completed = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        // Every call waits (bounded) until the limit was once reached, so reaching it is not left to luck.
        CountDownLatch limitReached = new CountDownLatch(1);
        List<RedisAdmissionStore> stores = new ArrayList<>();
        AtomicReference<Admission> any = new AtomicReference<>();
        StartTogether together = new StartTogether();
        try {
            for (int i = 0; i < INSTANCES; i++) {
                RedisAdmissionStore store = RedisAdmissionStore.create(RedisTestSettings.forAddress(REDIS.server().address()));
                stores.add(store);
                RateLimiter limiter = new RateLimiter(policy("models.m.rpm=1000000"), store);
                for (int t = 0; t < THREADS; t++) {
                    together.add(() -> {
                        int done = 0;
                        while (done < CALLS_PER_THREAD) {
                            Admission admission = admit(limiter, "m", null, null, plan);
                            if (admission.outcome() != Admission.Outcome.ADMITTED) {
                                refused.incrementAndGet();
                                Thread.sleep(1);
                                continue;
                            }
                            int now = inFlight.incrementAndGet();
                            maxInFlight.accumulateAndGet(now, Math::max);
                            if (now == MAX_PARALLEL) {
                                limitReached.countDown();
                            }
                            limitReached.await(10, TimeUnit.SECONDS);
                            Thread.sleep(2);
                            inFlight.decrementAndGet();
                            admission.abort();
                            any.set(admission);
                            completed.incrementAndGet();
                            done++;
                        }
                        return null;
                    });
                }
            }
            together.run(Duration.ofSeconds(120));
        } finally {
            stores.forEach(RedisAdmissionStore::close);
        }

        assertThat(limitReached.getCount()).isZero();
        assertThat(maxInFlight.get()).isEqualTo(MAX_PARALLEL);
        assertThat(completed.get()).isEqualTo(INSTANCES * THREADS * CALLS_PER_THREAD);
        assertThat(refused.get()).isPositive();
        String slots = GroupKeys.of("llmrl:", any.get().plan().group(0)).slots();
        assertThat(REDIS.server().call("ZCARD", slots)).isEqualTo(0L);
    }
}
