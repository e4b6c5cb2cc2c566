package dev.llmratelimit.config;

import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.identity.CallerLimitPolicy;
import dev.llmratelimit.identity.CallerResolver;
import dev.llmratelimit.policy.RateLimitPolicy;
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
 * The runtime of {@code store=redis}. Redisson is an optional dependency: this is the only class
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
    static RateLimitRuntime create(FilterSettings settings, RateLimitPolicy policy, CallerLimitPolicy callerLimits,
                                   CallerResolver resolver, Map<String, String> properties) {
        RedisStoreSettings redis = RedisStoreSettings.parse(properties);
        CircuitBreaker breaker = new CircuitBreaker(CircuitBreakerSettings.parse(properties), Clock.systemUTC());
        RedissonClient client = RedissonClientFactory.create(redis);
        RateLimiter limiter = new RateLimiter(policy,
                new CircuitBreakingCounterStore(RedisCounterStore.using(client, redis.keyPrefix()), breaker),
                new CircuitBreakingCallerLimitStore(RedisCallerLimitStore.using(client, redis.keyPrefix()), breaker));
        return new RateLimitRuntime(settings, limiter, resolver, callerLimits, client::shutdown);
    }
}
