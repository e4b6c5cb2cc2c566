package dev.llmratelimit.config;

import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.identity.CallerLimitPolicy;
import dev.llmratelimit.identity.CallerResolver;
import dev.llmratelimit.identity.CallerResolvers;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.store.CircuitBreaker;
import dev.llmratelimit.store.CircuitBreakerSettings;
import dev.llmratelimit.store.CircuitBreakingCallerLimitStore;
import dev.llmratelimit.store.CircuitBreakingCounterStore;
import dev.llmratelimit.store.memory.MemoryCallerLimitStore;
import dev.llmratelimit.store.memory.MemoryCounterStore;
import dev.llmratelimit.store.redis.RedisCallerLimitStore;
import dev.llmratelimit.store.redis.RedisCounterStore;
import dev.llmratelimit.store.redis.RedisStoreSettings;
import dev.llmratelimit.store.redis.RedissonClientFactory;
import dev.llmratelimit.usage.TokenCounter;
import org.redisson.api.RedissonClient;

import java.time.Clock;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Everything the filter needs, built once from the {@code llm.ratelimit.*} properties: the engine
 * with its stores, the caller resolver, the per-caller limit policy and the servlet settings.
 * Closing it closes the stores (and the Redis client they share).
 */
public final class RateLimitRuntime implements AutoCloseable {

    private final FilterSettings settings;
    private final RateLimiter limiter;
    private final CallerResolver callerResolver;
    private final CallerLimitPolicy callerLimits;
    private final AutoCloseable stores;
    private final CompletableFuture<Set<String>> tokenizers;

    /** Starts loading the tokenizers of the configured models in the background ({@link TokenCounter#warmUp}). */
    public RateLimitRuntime(FilterSettings settings, RateLimiter limiter, CallerResolver callerResolver,
                            CallerLimitPolicy callerLimits, AutoCloseable stores) {
        this.settings = settings;
        this.limiter = limiter;
        this.callerResolver = callerResolver;
        this.callerLimits = callerLimits;
        this.stores = stores;
        this.tokenizers = TokenCounter.warmUp(limiter.policy().models().keySet());
    }

    /**
     * Builds the runtime; invalid configuration fails here with a message naming the property.
     *
     * @param callerResolver the application's own resolver, or {@code null} for the configured one
     */
    public static RateLimitRuntime create(Map<String, String> properties, CallerResolver callerResolver) {
        FilterSettings settings = FilterSettings.parse(properties);
        RateLimitPolicy policy = PolicyParser.parse(properties);
        CallerLimitPolicy callerLimits = CallerLimitPolicy.parse(properties, policy.window());
        CallerResolver resolver = callerResolver != null ? callerResolver : CallerResolvers.create(properties);
        if (!settings.store().equals("redis")) {
            return new RateLimitRuntime(settings, new RateLimiter(policy, new MemoryCounterStore(),
                    new MemoryCallerLimitStore()), resolver, callerLimits, () -> { });
        }
        return redis(settings, policy, callerLimits, resolver, properties);
    }

    /**
     * Both stores on one Redisson client, behind one circuit breaker, so a dead Redis costs neither
     * store a timeout per request.
     */
    private static RateLimitRuntime redis(FilterSettings settings, RateLimitPolicy policy, CallerLimitPolicy callerLimits,
                                          CallerResolver resolver, Map<String, String> properties) {
        RedisStoreSettings redis = RedisStoreSettings.parse(properties);
        CircuitBreaker breaker = new CircuitBreaker(CircuitBreakerSettings.parse(properties), Clock.systemUTC());
        RedissonClient client = RedissonClientFactory.create(redis);
        RateLimiter limiter = new RateLimiter(policy,
                new CircuitBreakingCounterStore(RedisCounterStore.using(client, redis.keyPrefix()), breaker),
                new CircuitBreakingCallerLimitStore(RedisCallerLimitStore.using(client, redis.keyPrefix()), breaker));
        return new RateLimitRuntime(settings, limiter, resolver, callerLimits, client::shutdown);
    }

    public FilterSettings settings() {
        return settings;
    }

    public RateLimiter limiter() {
        return limiter;
    }

    public CallerResolver callerResolver() {
        return callerResolver;
    }

    /** Turns a resolved caller into the per-caller counters its request must pass. */
    public CallerLimitPolicy callerLimits() {
        return callerLimits;
    }

    /** Completes, with the names of the encodings loaded, once no request has to load a tokenizer. */
    public CompletableFuture<Set<String>> tokenizersWarmedUp() {
        return tokenizers;
    }

    @Override
    public void close() {
        try {
            stores.close();
        } catch (Exception e) {
            throw new IllegalStateException("Could not close the counter stores", e);
        }
    }
}
