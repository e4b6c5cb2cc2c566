package dev.llmratelimit.config;

import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.identity.CallerLimitPolicy;
import dev.llmratelimit.identity.CallerResolver;
import dev.llmratelimit.identity.CallerResolvers;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.store.CircuitBreaker;
import dev.llmratelimit.store.CircuitBreakerSettings;
import dev.llmratelimit.store.CircuitBreakingAdmissionStore;
import dev.llmratelimit.store.CompensatingAdmissionStore;
import dev.llmratelimit.store.PendingCompensations;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.store.redis.RedisAdmissionStore;
import dev.llmratelimit.store.redis.RedisStoreSettings;
import dev.llmratelimit.store.redis.RedissonClientFactory;
import org.redisson.api.RedissonClient;

import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * Everything the filter needs, built once from the {@code llm.ratelimit.*} properties: the engine
 * with its stores, the caller resolver, the per-caller limit policy and the servlet settings.
 * Closing it closes the stores (and the Redis client they share).
 */
public final class RateLimitRuntime implements AutoCloseable {

    /** Unconfirmed settlements kept in memory at most (about 200 bytes each). */
    static final int PENDING_COMPENSATIONS = 10_000;

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
        return create(properties, callerResolver, Clock.systemUTC());
    }

    /**
     * @param clock the clock of the memory store and of budget periods (tests move it; Redis windows
     *              keep the server's time)
     */
    public static RateLimitRuntime create(Map<String, String> properties, CallerResolver callerResolver, Clock clock) {
        FilterSettings settings = FilterSettings.parse(properties);
        RateLimitPolicy policy = PolicyParser.parse(properties);
        CallerLimitPolicy callerLimits = CallerLimitPolicy.parse(properties, policy.window());
        CallerResolver resolver = callerResolver != null ? callerResolver : CallerResolvers.create(properties);
        if (!settings.store().equals("redis")) {
            return runtime(settings, policy, callerLimits, resolver, properties, clock, new MemoryAdmissionStore(clock), () -> { });
        }
        return redis(settings, policy, callerLimits, resolver, properties, clock);
    }

    /** The engine over the counter store and, where budgets live elsewhere, the budget store. */
    private static RateLimitRuntime runtime(FilterSettings settings, RateLimitPolicy policy, CallerLimitPolicy callerLimits,
                                            CallerResolver resolver, Map<String, String> properties, Clock clock,
                                            AdmissionStore counterStore, AutoCloseable counterStoreClose) {
        BudgetStores budgets = BudgetStores.configure(properties, policy, clock);
        RateLimiter limiter = new RateLimiter(policy, budgets.around(counterStore), clock, callerLimits.leaseMillis(),
                budgets.extensions());
        return new RateLimitRuntime(settings, limiter, resolver, callerLimits, () -> {
            try (counterStoreClose; budgets) {
                // both closed, the budget store first
            }
        });
    }

    /**
     * The store on one Redisson client, behind its own circuit breaker (so a dead Redis costs no
     * timeout per request) and a queue of compensations for decisions whose answer never came.
     */
    private static RateLimitRuntime redis(FilterSettings settings, RateLimitPolicy policy, CallerLimitPolicy callerLimits,
                                          CallerResolver resolver, Map<String, String> properties, Clock clock) {
        RedisStoreSettings redis = RedisStoreSettings.parse(properties);
        CircuitBreaker breaker = new CircuitBreaker(CircuitBreakerSettings.parse(properties), Clock.systemUTC());
        RedissonClient client = RedissonClientFactory.create(redis);
        AdmissionStore store = new CompensatingAdmissionStore(
                new CircuitBreakingAdmissionStore(RedisAdmissionStore.using(client, redis.keyPrefix()), breaker),
                new PendingCompensations(PENDING_COMPENSATIONS), Clock.systemUTC());
        return runtime(settings, policy, callerLimits, resolver, properties, clock, store, client::shutdown);
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
