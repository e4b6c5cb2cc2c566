package dev.llmratelimit.config;

import dev.llmratelimit.store.CircuitBreaker;
import dev.llmratelimit.store.CircuitBreakerSettings;
import dev.llmratelimit.store.CircuitBreakingCallerLimitStore;
import dev.llmratelimit.store.CircuitBreakingCounterStore;
import dev.llmratelimit.store.redis.RedisCallerLimitStore;
import dev.llmratelimit.store.redis.RedisCounterStore;
import dev.llmratelimit.store.redis.RedisStoreSettings;
import dev.llmratelimit.store.redis.RedissonClientFactory;
import org.redisson.api.RedissonClient;

import java.time.Clock;
import java.util.Map;

/**
 * The stores of {@code store=redis}. Redisson is an optional dependency: this is the only class
 * outside the Redis store that names it, and it is loaded only when {@code store=redis} (after
 * {@link FilterSettings} checked that Redisson is there), so applications without Redisson never
 * link against it.
 */
final class RedisRuntime {

    private RedisRuntime() {
    }

    /**
     * Both stores on one Redisson client, behind one circuit breaker, so a dead Redis costs neither
     * store a timeout per request.
     */
    static RateLimitRuntime.Stores stores(Map<String, String> properties) {
        RedisStoreSettings redis = RedisStoreSettings.parse(properties);
        CircuitBreaker breaker = new CircuitBreaker(CircuitBreakerSettings.parse(properties), Clock.systemUTC());
        RedissonClient client = RedissonClientFactory.create(redis);
        return new RateLimitRuntime.Stores(
                new CircuitBreakingCounterStore(RedisCounterStore.using(client, redis.keyPrefix()), breaker),
                new CircuitBreakingCallerLimitStore(RedisCallerLimitStore.using(client, redis.keyPrefix()), breaker),
                client::shutdown);
    }
}
