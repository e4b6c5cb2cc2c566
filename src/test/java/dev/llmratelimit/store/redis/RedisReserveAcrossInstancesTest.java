package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.testsupport.StartTogether;
import dev.llmratelimit.testsupport.RedisTestSettings;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.llmratelimit.testsupport.Admits.admit;

/**
 * {@code token-admission=reserve} under 64 concurrent requests through four application instances
 * (each its own Redisson client, 16 threads each) keeps the tokens admitted within one window at
 * most TPM plus the estimation error of the requests in flight.
 */
class RedisReserveAcrossInstancesTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final int INSTANCES = 4;
    private static final int THREADS = 16;
    private static final int ATTEMPTS = 25;
    private static final long TPM = 20_000;
    private static final long PROMPT = 40;
    private static final long MAX_TOKENS = 60;

    /** What a request of this thread uses beyond its estimate of 100: -10, 0, +10 or +20 tokens. */
    private static long error(int thread) {
        return (thread % 4) * 10L - 10;
    }

    @Test
    void tokensAdmittedStayWithinTpmPlusTheEstimationErrorInFlight() throws Exception {
        RateLimitPolicy policy = policy("models.m.tpm=" + TPM, "token-admission=reserve");
        List<RedisAdmissionStore> stores = new ArrayList<>();
        StartTogether together = new StartTogether();
        AtomicLong admitted = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        AtomicLong tokensUsed = new AtomicLong();
        try {
            for (int i = 0; i < INSTANCES; i++) {
                // A generous timeout: a decision that timed out would be admitted unreserved (fail-open).
                RedisAdmissionStore store = RedisAdmissionStore.create(RedisTestSettings.forAddress(REDIS.server().address()));
                stores.add(store);
                RateLimiter instance = new RateLimiter(policy, store);
                for (int t = 0; t < THREADS; t++) {
                    long error = error(i * THREADS + t);
                    together.add(() -> {
                        for (int a = 0; a < ATTEMPTS; a++) {
                            Admission admission = admit(instance, "m", null, null, PROMPT, MAX_TOKENS);
                            if (admission.outcome() != Admission.Outcome.ADMITTED) {
                                assertThat(admission.outcome()).isEqualTo(Admission.Outcome.REFUSED);
                                refused.incrementAndGet();
                                continue;
                            }
                            assertThat(admission.reservedTokens()).isEqualTo(PROMPT + MAX_TOKENS);
                            Thread.sleep(1);                                          // the call
                            Usage usage = new Usage(PROMPT, MAX_TOKENS + error, 0);
                            admission.complete(usage);
                            admitted.incrementAndGet();
                            tokensUsed.addAndGet(PROMPT + MAX_TOKENS + error);
                        }
                        return null;
                    });
                }
            }
            together.run(Duration.ofSeconds(120));
        } finally {
            stores.forEach(RedisAdmissionStore::close);
        }

        assertThat(admitted.get() + refused.get()).isEqualTo(INSTANCES * THREADS * ATTEMPTS);
        assertThat(refused.get()).isPositive();                                      // the limit was reached
        // At most 64 requests are in flight when the last one is admitted; of them at most 16 use 20
        // and 16 use 10 tokens more than they reserved.
        long estimationError = THREADS * 20 + THREADS * 10;
        assertThat(tokensUsed.get()).isLessThanOrEqualTo(TPM + estimationError);
        // Every correction landed: the counters hold exactly what the responses used (requests,
        // which nothing limits, are not counted).
        assertThat(REDIS.server().call("HMGET", stores.get(0).keyOf("m"), "r", "t", "t:default"))
                .isEqualTo(Arrays.asList(null, Long.toString(tokensUsed.get()), Long.toString(tokensUsed.get())));
    }
}
