package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.Settlement;
import dev.llmratelimit.engine.Limit;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.store.CircuitBreakerSettings;
import dev.llmratelimit.store.CircuitBreaker;
import dev.llmratelimit.store.CircuitBreakingAdmissionStore;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.testsupport.RedisServer;
import dev.llmratelimit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.llmratelimit.testsupport.Admits.admit;

/** Redis going away and coming back, through the engine, the circuit breaker and the Redis store. */
class RedisStoreFaultTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final Duration BACKOFF = Duration.ofSeconds(5);

    private final MutableClock clock = new MutableClock();
    private RedisAdmissionStore redisStore;
    private CountingStore reachingRedis;

    @AfterEach
    void closeStore() {
        redisStore.close();
    }

    private RateLimiter limiter(String onStoreFailure) {
        redisStore = RedisAdmissionStore.create(RedisStoreSettings.parse(
                Map.of(RedisStoreSettings.PREFIX + "address", REDIS.server().address())));
        reachingRedis = new CountingStore(redisStore);
        AdmissionStore store = new CircuitBreakingAdmissionStore(reachingRedis,
                new CircuitBreaker(new CircuitBreakerSettings(3, BACKOFF), clock));
        return new RateLimiter(policy("models.m.rpm=5", "on-store-failure=" + onStoreFailure), store);
    }

    @Test
    void failOpenSkipsADeadRedisAndEnforcesLimitsAgainWhenItIsBack() {
        RateLimiter limiter = limiter("fail-open");
        RedisServer server = REDIS.server();
        assertThat(admit(limiter, "m", null).outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(admit(limiter, "m", null).outcome()).isEqualTo(Admission.Outcome.ADMITTED);

        server.stop();
        for (int i = 0; i < 50; i++) {
            Admission admission = admit(limiter, "m", null);
            assertThat(admission.outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_OPEN);
            assertThat(admission.permitsCall()).isTrue();
        }
        assertThat(reachingRedis.calls.get()).isEqualTo(2 + 3);   // after 3 failures the circuit skips Redis

        server.start();                                           // same port, empty, no scripts loaded
        assertThat(admit(limiter, "m", null).outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_OPEN);
        assertThat(reachingRedis.calls.get()).isEqualTo(5);       // still backing off

        Admission probe = awaitAdmitted(limiter);
        assertThat(probe.verdict().requestRemaining()).isEqualTo(4);          // a fresh window on the new server
        for (int i = 0; i < 4; i++) {
            assertThat(admit(limiter, "m", null).outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        }
        Verdict refused = admit(limiter, "m", null).verdict();
        assertThat(refused.refusedBy()).isEqualTo(Limit.MODEL_REQUESTS);
        assertThat(RedisAdmissionStoreTest.scriptLoads(server)).isEqualTo(1);     // the NOSCRIPT path
    }

    @Test
    void failClosedRefusesWhileRedisIsDown() {
        RateLimiter limiter = limiter("fail-closed");
        assertThat(admit(limiter, "m", null).outcome()).isEqualTo(Admission.Outcome.ADMITTED);

        REDIS.server().stop();
        for (int i = 0; i < 20; i++) {
            Admission admission = admit(limiter, "m", null);
            assertThat(admission.outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_CLOSED);
            assertThat(admission.permitsCall()).isFalse();
        }
        assertThat(reachingRedis.calls.get()).isEqualTo(1 + 3);

        REDIS.server().start();
        assertThat(awaitAdmitted(limiter).verdict().requestRemaining()).isEqualTo(4);
    }

    /**
     * Moves the clock past the back-off and lets the probe through until one is admitted: the
     * client may need a few probes to reconnect, each failed probe opening the circuit again.
     */
    private Admission awaitAdmitted(RateLimiter limiter) {
        for (int attempt = 0; attempt < 100; attempt++) {
            clock.advance(BACKOFF);
            int before = reachingRedis.calls.get();
            Admission admission = admit(limiter, "m", null);
            assertThat(reachingRedis.calls.get()).isEqualTo(before + 1);        // exactly one probe
            if (admission.outcome() == Admission.Outcome.ADMITTED) {
                return admission;
            }
            sleep(100);
        }
        throw new AssertionError("Redis was not used again within 100 probes");
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Counts the calls that reach the Redis store. */
    private static final class CountingStore implements AdmissionStore {
        private final AdmissionStore delegate;
        final AtomicInteger calls = new AtomicInteger();

        CountingStore(AdmissionStore delegate) {
            this.delegate = delegate;
        }

        @Override
        public Verdict decide(Plan plan) {
            calls.incrementAndGet();
            return delegate.decide(plan);
        }

        @Override
        public void settle(Plan plan, Settlement settlement) {
            calls.incrementAndGet();
            delegate.settle(plan, settlement);
        }
    }
}
