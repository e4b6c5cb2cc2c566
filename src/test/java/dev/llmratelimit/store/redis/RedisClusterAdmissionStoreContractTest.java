package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.testsupport.RedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.redisson.api.RedissonClient;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The shared store contract against a 6-node Redis Cluster: a plan's model and caller groups live
 * in different hash slots (on different masters), so a decision is one script call per slot.
 */
@Tag("cluster")
class RedisClusterAdmissionStoreContractTest extends RedisStoreContract {

    private static final AtomicInteger STORES = new AtomicInteger();

    private static RedisCluster cluster;
    private static RedissonClient client;

    @BeforeAll
    static void startCluster() throws IOException {
        cluster = RedisCluster.start();
        client = RedissonClientFactory.create(RedisStoreSettings.parse(
                Map.of(RedisStoreSettings.PREFIX + "config-file", cluster.writeRedissonConfig().toString())));
    }

    @AfterAll
    static void stopCluster() {
        client.shutdown();
        cluster.close();
    }

    /** Each store gets its own key prefix, so it starts empty. */
    @Override
    protected AdmissionStore createStore() {
        return RedisAdmissionStore.using(client, "cluster-contract" + STORES.incrementAndGet() + ":");
    }
}
