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
 * Attack on {@code Settlement.asLate()}: a call that outlives {@code parallel-lease} (a long stream;
 * a 10 min lease under a 1 h window) is settled late. Its usage must replace its reservation, as in
 * time: with Redis the decision's marker (the window ends it counted in) expires with the lease, so
 * settle.lua adds the usage to the live window and the whole reservation stays counted beside it.
 * The memory store still holds the record and settles exactly; the two stores disagree.
 */
class LateSettlementAttackTest {

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
