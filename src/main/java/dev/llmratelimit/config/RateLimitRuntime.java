package dev.llmratelimit.config;

import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.identity.CallerLimitPolicy;
import dev.llmratelimit.identity.CallerResolver;
import dev.llmratelimit.identity.CallerResolvers;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.store.memory.MemoryCallerLimitStore;
import dev.llmratelimit.store.memory.MemoryCounterStore;

import java.util.Map;

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

    public RateLimitRuntime(FilterSettings settings, RateLimiter limiter, CallerResolver callerResolver,
                            CallerLimitPolicy callerLimits, AutoCloseable stores) {
        this.settings = settings;
        this.limiter = limiter;
        this.callerResolver = callerResolver;
        this.callerLimits = callerLimits;
        this.stores = stores;
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
        return RedisRuntime.create(settings, policy, callerLimits, resolver, properties);
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

    @Override
    public void close() {
        try {
            stores.close();
        } catch (Exception e) {
            throw new IllegalStateException("Could not close the counter stores", e);
        }
    }
}
