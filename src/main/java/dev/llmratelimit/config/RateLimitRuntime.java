package dev.llmratelimit.config;

import dev.llmratelimit.engine.CallerLimitStore;
import dev.llmratelimit.engine.CounterStore;
import dev.llmratelimit.engine.DecisionObserver;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.identity.CallerLimitPolicy;
import dev.llmratelimit.identity.CallerResolver;
import dev.llmratelimit.identity.CallerResolvers;
import dev.llmratelimit.observe.BudgetStatus;
import dev.llmratelimit.observe.ConfigurationStatus;
import dev.llmratelimit.observe.Metrics;
import dev.llmratelimit.observe.ObservabilitySettings;
import dev.llmratelimit.observe.StatusReader;
import dev.llmratelimit.observe.StatusSettings;
import dev.llmratelimit.observe.StoreHealth;
import dev.llmratelimit.observe.Telemetry;
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
import org.redisson.api.RedissonClient;

import java.time.Clock;
import java.time.Instant;
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
    private final Metrics metrics;
    private final StatusSettings statusSettings;
    private final StatusReader status;
    private volatile ConfigurationStatus configuration;

    /** A runtime without metrics and without status page. */
    public RateLimitRuntime(FilterSettings settings, RateLimiter limiter, CallerResolver callerResolver,
                            CallerLimitPolicy callerLimits, AutoCloseable stores) {
        this(settings, limiter, callerResolver, callerLimits, stores, Metrics.NONE, StatusSettings.OFF,
                new StoreHealth("memory", Map.of(), Clock.systemUTC()), Map.of());
    }

    private RateLimitRuntime(FilterSettings settings, RateLimiter limiter, CallerResolver callerResolver,
                             CallerLimitPolicy callerLimits, AutoCloseable stores, Metrics metrics,
                             StatusSettings statusSettings, StoreHealth health, Map<String, String> properties) {
        this.settings = settings;
        this.limiter = limiter;
        this.callerResolver = callerResolver;
        this.callerLimits = callerLimits;
        this.stores = stores;
        this.metrics = metrics;
        this.statusSettings = statusSettings;
        this.configuration = ConfigurationStatus.loaded("llm.ratelimit.* properties", properties, Instant.now());
        this.status = new StatusReader(limiter, health, () -> configuration, BudgetStatus.Source.NONE, Clock.systemUTC());
    }

    /**
     * Builds the runtime; invalid configuration fails here with a message naming the property.
     *
     * @param callerResolver the application's own resolver, or {@code null} for the configured one
     */
    public static RateLimitRuntime create(Map<String, String> properties, CallerResolver callerResolver) {
        return create(properties, callerResolver, Telemetry.fromEnvironment());
    }

    /**
     * Builds the runtime with metrics into this telemetry (unless {@code metrics.enabled=false}).
     *
     * @param callerResolver the application's own resolver, or {@code null} for the configured one
     */
    public static RateLimitRuntime create(Map<String, String> properties, CallerResolver callerResolver,
                                          Telemetry telemetry) {
        FilterSettings settings = FilterSettings.parse(properties);
        RateLimitPolicy policy = PolicyParser.parse(properties);
        CallerLimitPolicy callerLimits = CallerLimitPolicy.parse(properties, policy.window());
        CallerResolver resolver = callerResolver != null ? callerResolver : CallerResolvers.create(properties);
        ObservabilitySettings observability = ObservabilitySettings.parse(properties);
        Telemetry measured = observability.metricsEnabled() ? telemetry : Telemetry.NONE;
        if (!settings.store().equals("redis")) {
            StoreHealth health = new StoreHealth("memory", Map.of(), Clock.systemUTC());
            return observed(settings, policy, new MemoryCounterStore(), new MemoryCallerLimitStore(), health, measured,
                    observability, resolver, callerLimits, () -> { }, properties);
        }
        return redis(settings, policy, callerLimits, resolver, properties, measured, observability);
    }

    /**
     * Both stores on one Redisson client, behind one circuit breaker, so a dead Redis costs neither
     * store a timeout per request.
     */
    private static RateLimitRuntime redis(FilterSettings settings, RateLimitPolicy policy, CallerLimitPolicy callerLimits,
                                          CallerResolver resolver, Map<String, String> properties, Telemetry telemetry,
                                          ObservabilitySettings observability) {
        RedisStoreSettings redis = RedisStoreSettings.parse(properties);
        CircuitBreaker breaker = new CircuitBreaker(CircuitBreakerSettings.parse(properties), Clock.systemUTC());
        RedissonClient client = RedissonClientFactory.create(redis);
        StoreHealth health = new StoreHealth("redis", Map.of("redis", breaker), Clock.systemUTC());
        return observed(settings, policy,
                new CircuitBreakingCounterStore(RedisCounterStore.using(client, redis.keyPrefix()), breaker),
                new CircuitBreakingCallerLimitStore(RedisCallerLimitStore.using(client, redis.keyPrefix()), breaker),
                health, telemetry, observability, resolver, callerLimits, client::shutdown, properties);
    }

    /** The engine on these stores, observed by the store's health and the meters. */
    private static RateLimitRuntime observed(FilterSettings settings, RateLimitPolicy policy, CounterStore store,
                                             CallerLimitStore callerStore, StoreHealth health, Telemetry telemetry,
                                             ObservabilitySettings observability, CallerResolver resolver,
                                             CallerLimitPolicy callerLimits, AutoCloseable stores,
                                             Map<String, String> properties) {
        Metrics metrics = telemetry.metrics(policy, health);
        RateLimiter limiter = new RateLimiter(policy, store, callerStore, DecisionObserver.both(health, metrics));
        metrics.watch(limiter);
        return new RateLimitRuntime(settings, limiter, resolver, callerLimits, stores, metrics,
                observability.status(), health, properties);
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

    /** The meters; budgets report their spend through {@link Metrics#spent}. */
    public Metrics metrics() {
        return metrics;
    }

    public StatusSettings statusSettings() {
        return statusSettings;
    }

    /** Reads what the status page shows. */
    public StatusReader status() {
        return status;
    }

    public ConfigurationStatus configuration() {
        return configuration;
    }

    /** Names where the configuration came from, for the status page (default: {@code llm.ratelimit.* properties}). */
    public void configurationOrigin(String origin) {
        ConfigurationStatus current = configuration;
        configuration = new ConfigurationStatus(origin, current.fingerprint(), current.loadedAt(), current.lastReload());
    }

    /** Reports a reload attempt (applied, or rejected with its message) to the status page. */
    public void configurationReloaded(ConfigurationStatus.Reload reload) {
        configuration = configuration.reloaded(reload);
    }

    @Override
    public void close() {
        metrics.close();
        try {
            stores.close();
        } catch (Exception e) {
            throw new IllegalStateException("Could not close the counter stores", e);
        }
    }
}
