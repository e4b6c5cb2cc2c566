package dev.llmratelimit.config;

import dev.llmratelimit.engine.CounterStore;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.identity.CallerResolver;
import dev.llmratelimit.identity.CallerResolvers;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.store.CircuitBreakerSettings;
import dev.llmratelimit.store.CircuitBreakingCounterStore;
import dev.llmratelimit.store.memory.MemoryCounterStore;
import dev.llmratelimit.store.redis.RedisCounterStore;
import dev.llmratelimit.store.redis.RedisStoreSettings;

import java.time.Clock;
import java.util.Map;

/**
 * Everything the filter needs, built once from the {@code llm.ratelimit.*} properties: the engine
 * with its store, the caller resolver and the servlet settings. Closing it closes the store.
 */
public final class RateLimitRuntime implements AutoCloseable {

    private final FilterSettings settings;
    private final RateLimiter limiter;
    private final CallerResolver callerResolver;
    private final CounterStore store;

    public RateLimitRuntime(FilterSettings settings, RateLimiter limiter, CallerResolver callerResolver,
                            CounterStore store) {
        this.settings = settings;
        this.limiter = limiter;
        this.callerResolver = callerResolver;
        this.store = store;
    }

    /**
     * Builds the runtime; invalid configuration fails here with a message naming the property.
     *
     * @param callerResolver the application's own resolver, or {@code null} for the configured one
     */
    public static RateLimitRuntime create(Map<String, String> properties, CallerResolver callerResolver) {
        FilterSettings settings = FilterSettings.parse(properties);
        RateLimitPolicy policy = PolicyParser.parse(properties);
        CallerResolver resolver = callerResolver != null ? callerResolver : CallerResolvers.create(properties);
        CounterStore store = createStore(settings, properties);
        return new RateLimitRuntime(settings, new RateLimiter(policy, store), resolver, store);
    }

    /** The memory store, or Redis behind a circuit breaker so a dead Redis does not cost a timeout per request. */
    private static CounterStore createStore(FilterSettings settings, Map<String, String> properties) {
        if (!settings.store().equals("redis")) {
            return new MemoryCounterStore();
        }
        return new CircuitBreakingCounterStore(RedisCounterStore.create(RedisStoreSettings.parse(properties)),
                CircuitBreakerSettings.parse(properties), Clock.systemUTC());
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

    @Override
    public void close() {
        store.close();
    }
}
