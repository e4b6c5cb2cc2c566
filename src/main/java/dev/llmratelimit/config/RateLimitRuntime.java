package dev.llmratelimit.config;

import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.identity.CallerLimitPolicy;
import dev.llmratelimit.identity.CallerResolver;
import dev.llmratelimit.identity.CallerResolvers;
import dev.llmratelimit.policy.EnforcementMode;
import dev.llmratelimit.policy.FallbackPolicy;
import dev.llmratelimit.policy.InsteadOfRefusalParser;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.policy.WaitPolicy;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.store.memory.MemoryCallerLimitStore;
import dev.llmratelimit.store.memory.MemoryCounterStore;
import dev.llmratelimit.wait.WaitRoom;

import java.time.Clock;
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
    private FallbackPolicy fallbacks = FallbackPolicy.NONE;
    private WaitPolicy waitPolicy;
    private WaitRoom waitRoom;

    public RateLimitRuntime(FilterSettings settings, RateLimiter limiter, CallerResolver callerResolver,
                            CallerLimitPolicy callerLimits, AutoCloseable stores) {
        this.settings = settings;
        this.limiter = limiter;
        this.callerResolver = callerResolver;
        this.callerLimits = callerLimits;
        this.stores = stores;
    }

    /** Adds fallbacks and waiting (SPEC section 15), validated against the limiter's policy. */
    private RateLimitRuntime withInsteadOfRefusal(Map<String, String> properties) {
        fallbacks = InsteadOfRefusalParser.fallbacks(properties, limiter.policy());
        waitPolicy = InsteadOfRefusalParser.waiting(properties, limiter.policy());
        if (waitPolicy.waits() && limiter.policy().mode() != EnforcementMode.SHADOW) {
            waitRoom = new WaitRoom(Clock.systemUTC(), waitPolicy.maxWaiters(), waitPolicy.pollInterval());
        }
        return this;
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
        RateLimitRuntime runtime = settings.store().equals("redis")
                ? RedisRuntime.create(settings, policy, callerLimits, resolver, properties)
                : new RateLimitRuntime(settings, new RateLimiter(policy, new MemoryCounterStore(),
                        new MemoryCallerLimitStore()), resolver, callerLimits, () -> { });
        return runtime.withInsteadOfRefusal(properties);
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

    /** The fallback models of each model. */
    public FallbackPolicy fallbacks() {
        return fallbacks;
    }

    /** How long refused requests may wait; {@code null} for a runtime built without properties. */
    public WaitPolicy waitPolicy() {
        return waitPolicy;
    }

    /** Where refused requests wait; {@code null} when no request may wait. */
    public WaitRoom waitRoom() {
        return waitRoom;
    }

    /** The clock of waiting (the stores use their own). */
    public Clock clock() {
        return Clock.systemUTC();
    }

    @Override
    public void close() {
        if (waitRoom != null) {
            waitRoom.close();
        }
        try {
            stores.close();
        } catch (Exception e) {
            throw new IllegalStateException("Could not close the counter stores", e);
        }
    }
}
