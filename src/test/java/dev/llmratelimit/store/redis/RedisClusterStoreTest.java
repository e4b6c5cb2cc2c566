package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.Limit;
import dev.llmratelimit.engine.ModelCounters;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.testsupport.RedisCluster;
import dev.llmratelimit.testsupport.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.llmratelimit.testsupport.Admits.admit;

/** The store on a 6-node Redis Cluster configured by a Redisson YAML file, through a master's failover. */
@Tag("cluster")
class RedisClusterStoreTest {

    private static final int MODELS = 30;

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
    void decisionsSpreadOverSlotsAndResumeAfterAMasterFails() throws Exception {
        Path yaml = cluster.writeRedissonConfig();
        List<String> lines = new ArrayList<>(List.of("reservation.prod=0.5", "saturation-threshold=1"));
        IntStream.range(0, MODELS).forEach(i -> lines.add("models.model-" + i + ".rpm=3"));
        lines.add("models.daily.rpm=3");
        lines.add("models.daily.rpd=10");
        RateLimiter limiter;
        try (RedisAdmissionStore store = RedisAdmissionStore.create(RedisStoreSettings.parse(
                Map.of(RedisStoreSettings.PREFIX + "config-file", yaml.toString())))) {
            limiter = new RateLimiter(policy(lines.toArray(String[]::new)), store);

            List<Integer> slotsUsed = new ArrayList<>();
            for (int i = 0; i < MODELS / 2; i++) {
                assertThat(admitUntilRefused(limiter, "model-" + i)).isEqualTo(3);
                slotsUsed.add(cluster.slotOf(store.keyOf("model-" + i)));
            }
            assertThat(slotsUsed.stream().map(cluster::masterOf).distinct()).hasSize(3);   // every master took part

            // A model's windows share its hash tag: one snapshot call reads the minute's and the day's counters.
            assertThat(admitUntilRefused(limiter, "daily")).isEqualTo(3);
            ModelCounters daily = limiter.snapshot("daily");
            assertThat(daily.window(0).of(Dimension.REQUESTS)).isEqualTo(3);
            assertThat(daily.window(1).of(Dimension.REQUESTS)).isEqualTo(3);
            assertThat(daily.window(1).pool(1, Dimension.REQUESTS)).isEqualTo(3);   // prod
            assertThat(limiter.groupsOf("daily").saturation(daily)).isEqualTo(1.0);

            int slot = slotsUsed.get(0);
            RedisServer failed = cluster.masterOf(slot);
            failed.crash();
            cluster.awaitHealthy(slot);
            assertThat(cluster.masterOf(slot)).isNotSameAs(failed);

            // Fresh models whose keys live on the failed-over shard: the same store serves them again.
            List<String> onFailedShard = IntStream.range(MODELS / 2, MODELS).mapToObj(i -> "model-" + i)
                    .filter(model -> cluster.masterOf(cluster.slotOf(store.keyOf(model))) == cluster.masterOf(slot))
                    .toList();
            assertThat(onFailedShard).isNotEmpty();
            awaitAdmitted(limiter, onFailedShard.get(0));
            // The promoted replica had no scripts: NOSCRIPT, SCRIPT LOAD, retry.
            assertThat(RedisAdmissionStoreTest.scriptLoads(cluster.masterOf(slot))).isPositive();
            assertThat(admitUntilRefused(limiter, onFailedShard.get(0))).isEqualTo(2);
            for (String model : onFailedShard.subList(1, onFailedShard.size())) {
                assertThat(admitUntilRefused(limiter, model)).isEqualTo(3);
            }
        }
    }

    private static int admitUntilRefused(RateLimiter limiter, String model) {
        int admitted = 0;
        Admission admission;
        while ((admission = admit(limiter, model, "prod")).outcome() == Admission.Outcome.ADMITTED) {
            admitted++;
        }
        assertThat(admission.verdict()).as(model + " " + admission.outcome()).isNotNull();
        assertThat(admission.verdict().refusedBy()).isEqualTo(Limit.MODEL_REQUESTS);
        return admitted;
    }

    /** While Redisson learns the new topology, decisions fail open; wait for the first real one. */
    private static void awaitAdmitted(RateLimiter limiter, String model) throws InterruptedException {
        for (int attempt = 0; attempt < 150; attempt++) {
            Admission admission = admit(limiter, model, "prod");
            if (admission.outcome() == Admission.Outcome.ADMITTED) {
                return;
            }
            assertThat(admission.outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_OPEN);
            Thread.sleep(200);
        }
        throw new AssertionError("No decision reached the cluster within 30 s of the failover");
    }
}
