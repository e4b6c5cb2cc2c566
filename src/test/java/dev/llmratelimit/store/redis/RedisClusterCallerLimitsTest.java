package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.CallerCounter;
import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.CallerPlan;
import dev.llmratelimit.engine.CallerScope;
import dev.llmratelimit.engine.Limit;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.testsupport.RedisCluster;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.llmratelimit.testsupport.Admits.admit;

/** Caller counters of three scopes in one script on a Redis Cluster, in another slot than the model's. */
@Tag("cluster")
class RedisClusterCallerLimitsTest {

    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Test
    void keyUserAndTeamCountersWorkTogetherBesideTheModelsSlot() throws Exception {
        Path yaml = cluster.writeRedissonConfig();
        RedissonClient client = RedissonClientFactory.create(RedisStoreSettings.parse(
                Map.of(RedisStoreSettings.PREFIX + "config-file", yaml.toString())));
        try {
            RedisAdmissionStore models = RedisAdmissionStore.using(client, "llmrl:");
            RateLimiter limiter = new RateLimiter(policy("models.m.rpm=10", "models.m.tpm=1000",
                    "models.m.reservation.prod=0.2", "saturation-threshold=0"), models);
            CallerCounter key = new CallerCounter(CallerScope.KEY, "sk-1", 4, 0, 1);
            CallerPlan plan = new CallerPlan(List.of(key, new CallerCounter(CallerScope.USER, "u", 0, 100, 0),
                    new CallerCounter(CallerScope.TEAM, "t", 0, 0, 2)), 60_000, 600_000);
            String callerKey = "llmrl:{k.c2stMQ}";                                      // base64url("sk-1")
            assertThat(cluster.slotOf(callerKey)).isNotEqualTo(cluster.slotOf(models.keyOf("m")));

            Admission first = admit(limiter, "m", "prod", null, plan);
            assertThat(admit(limiter, "m", "prod", null, plan).refusal().dimension())
                    .isEqualTo(Dimension.PARALLEL_REQUESTS);
            first.complete(new Usage(30, 20, 0));
            admit(limiter, "m", "prod", null, plan).abort();
            assertThat(admit(limiter, "m", "prod", null, plan).verdict().refusedBy()).isEqualTo(Limit.POOL_REQUESTS);
            assertThat(admit(limiter, "m", null, null, plan).outcome()).isEqualTo(Admission.Outcome.ADMITTED);

            Admission refused = admit(limiter, "m", null, null, plan);
            assertThat(refused.refusal().dimension()).isEqualTo(Dimension.PARALLEL_REQUESTS);
            assertThat(cluster.masterOf(cluster.slotOf(callerKey)).call("HGET", callerKey, "r")).isEqualTo("3");
        } finally {
            client.shutdown();
        }
    }
}
