package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.PromptTokens;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.testsupport.RedisTestSettings;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;

import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A call that outlives {@code parallel-lease} (a long stream; a 10 min lease under a 1 h window) is
 * settled late: its usage still replaces its reservation, because the decision's record lives as long
 * as the window it reserved in counts (it used to expire with the lease in Redis, and the whole
 * reservation stayed counted beside the usage). Memory and Redis agree.
 */
class LateSettlementTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final long LEASE_MILLIS = 300;

    private static long tokensLeftAfterALateCall(AdmissionStore store) throws InterruptedException {
        MutableClock clock = new MutableClock();
        RateLimiter limiter = new RateLimiter(policy("models.m.rpm=100", "models.m.tpm=10000", "window=1h",
                "token-admission=reserve"), store, clock, LEASE_MILLIS, List.of());
        Admission call = limiter.admit(AdmissionRequest.of("m", null, null).withTokens(PromptTokens.known(1000), 1000));
        assertThat(call.reservedTokens()).isEqualTo(2000);
        Thread.sleep(LEASE_MILLIS + 200);                 // Redis's own clock: the marker's PX lease ends
        clock.advance(Duration.ofMillis(LEASE_MILLIS + 200));
        call.complete(new Usage(100, 50, 0));            // late: 150 tokens used of the 2,000 reserved

        Admission probe = limiter.admit(AdmissionRequest.of("m", null, null).withTokens(PromptTokens.known(0), 1));
        return probe.verdict().tokenRemaining();
    }

    @Test
    void aLateSettlementReplacesTheReservationWithTheUsageInMemory() throws InterruptedException {
        assertThat(tokensLeftAfterALateCall(new MemoryAdmissionStore())).isEqualTo(10_000 - 150 - 1);
    }

    @Test
    void aLateSettlementReplacesTheReservationWithTheUsageInRedis() throws InterruptedException {
        try (RedisAdmissionStore store = RedisAdmissionStore.create(RedisTestSettings.forAddress(REDIS.server().address()))) {
            assertThat(tokensLeftAfterALateCall(store)).isEqualTo(10_000 - 150 - 1);
        }
    }
}
