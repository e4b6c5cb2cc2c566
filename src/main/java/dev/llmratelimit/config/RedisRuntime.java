package dev.llmratelimit.config;

import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.observe.StoreHealth;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.store.CircuitBreakerSettings;
import dev.llmratelimit.store.CompensatingAdmissionStore;
import dev.llmratelimit.store.LocalShareAdmissionStore;
import dev.llmratelimit.store.PendingCompensations;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.store.redis.InstanceRegistry;
import dev.llmratelimit.store.redis.NodeCircuits;
import dev.llmratelimit.store.redis.RedisAdmissionStore;
import dev.llmratelimit.store.redis.RedisStoreSettings;
import dev.llmratelimit.store.redis.RedissonClientFactory;
import org.redisson.api.RedissonClient;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;

/**
 * The stores of {@code store=redis}. Redisson is an optional dependency: this is the only class
 * outside the Redis store that names it, and it is loaded only when {@code store=redis} (after
 * {@link FilterSettings} checked that Redisson is there), so applications without Redisson never
 * link against it.
 */
final class RedisRuntime {

    /** Unconfirmed settlements kept in memory at most (about 200 bytes each). */
    static final int PENDING_COMPENSATIONS = 10_000;
    /** How often an instance says it is alive (for {@code on-store-failure=local}); it counts for three. */
    static final Duration ANNOUNCE_INTERVAL = Duration.ofSeconds(5);

    private RedisRuntime() {
    }

    /**
     * The store on one Redisson client, each call through the circuit of the node it goes to (so a
     * dead Redis, or a dead cluster master, costs no timeout per request), behind a queue of
     * compensations for settlements whose answer never came.
     */
    static RateLimitRuntime.Stores stores(Map<String, String> properties) {
        RedisStoreSettings redis = RedisStoreSettings.parse(properties);
        RedissonClient client = RedissonClientFactory.create(redis);
        NodeCircuits circuits = NodeCircuits.of(client, CircuitBreakerSettings.parse(properties), Clock.systemUTC());
        PendingCompensations pending = new PendingCompensations(PENDING_COMPENSATIONS);
        AdmissionStore store = new CompensatingAdmissionStore(
                RedisAdmissionStore.using(client, redis.keyPrefix(), circuits), pending, Clock.systemUTC());
        StoreHealth health = new StoreHealth("redis", circuits.view(), pending, Clock.systemUTC());
        if (!decidesLocally(properties)) {
            return new RateLimitRuntime.Stores(store, health, () -> shutDown(store, client));
        }
        InstanceRegistry instances = InstanceRegistry.announcing(client, redis.keyPrefix(), ANNOUNCE_INTERVAL);
        LocalShareAdmissionStore local = new LocalShareAdmissionStore(store, new MemoryAdmissionStore(), instances);
        return new RateLimitRuntime.Stores(local, health.withLocalDecisions(local::localDecisions), () -> {
            instances.close();
            shutDown(local, client);
        });
    }

    /** Closes the store first (it sends the compensations still queued), then the client. */
    private static void shutDown(AdmissionStore store, RedissonClient client) {
        try {
            store.close();
        } finally {
            client.shutdown();
        }
    }

    /** {@code on-store-failure=local} at start-up: the local share is part of the store stack, built once. */
    private static boolean decidesLocally(Map<String, String> properties) {
        return properties.getOrDefault(PolicyParser.PREFIX + "on-store-failure", "").trim().equalsIgnoreCase("local");
    }
}
