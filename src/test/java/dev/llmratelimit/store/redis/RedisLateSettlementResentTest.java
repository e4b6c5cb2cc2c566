package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.Settlement;
import dev.llmratelimit.testsupport.Plans;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.testsupport.RedisTestSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A settlement is sent again when its answer never came (the compensation queue; in a cluster the
 * whole settlement again when one slot failed), so every settlement must count once however often it
 * lands. A late one (the call outlived its lease and the decision's record is gone) records its usage
 * in the live window: sent twice, it must still be recorded once.
 */
class RedisLateSettlementResentTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final String MODEL = "llmrl:{bQ}";                        // base64url("m")

    @Test
    void aLateSettlementSentTwiceRecordsItsUsageOnce() throws InterruptedException {
        Plan recorded = Plans.modelPlan("m", "default", 100, 10_000, 0, 0, false, 1.0, 60_000, false, 0);
        Plan shortLease = new Plan(recorded.requestId(), recorded.model(), recorded.pool(), recorded.groups(), 200,
                recorded.cost());
        try (RedisAdmissionStore store = RedisAdmissionStore.create(RedisTestSettings.forAddress(REDIS.server().address()))) {
            assertThat(store.decide(shortLease).admitted()).isTrue();
            Thread.sleep(400);                                               // Redis's clock: the record's lease ends
            Settlement late = Settlement.of(50, 0).asLate();
            store.settle(shortLease, late);
            store.settle(shortLease, late);                                  // its first answer was lost: sent again
        }
        assertThat(REDIS.server().call("HGET", MODEL, "t")).isEqualTo("50");
    }
}
