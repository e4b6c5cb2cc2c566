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
    private FallbackPolicy fallbacks = FallbackPolicy.NONE;
    private WaitPolicy waitPolicy;
    private WaitRoom waitRoom;
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
        Parts parts = new Parts(settings, policy, callerLimits, resolver, properties,
                ObservabilitySettings.parse(properties), telemetry);
        RateLimitRuntime runtime = settings.store().equals("redis")
                ? RedisRuntime.create(parts)
                : parts.observed(new MemoryCounterStore(), new MemoryCallerLimitStore(),
                        new StoreHealth("memory", Map.of(), Clock.systemUTC()), () -> { });
        return runtime.withInsteadOfRefusal(properties);
    }

    /** What every store's runtime is built from; {@link #observed} adds the engine on the stores. */
    record Parts(FilterSettings settings, RateLimitPolicy policy, CallerLimitPolicy callerLimits,
                 CallerResolver resolver, Map<String, String> properties, ObservabilitySettings observability,
                 Telemetry telemetry) {

        /** The engine on these stores, observed by the store's health and the meters. */
        RateLimitRuntime observed(CounterStore store, CallerLimitStore callerStore, StoreHealth health,
                                  AutoCloseable stores) {
            Metrics metrics = (observability.metricsEnabled() ? telemetry : Telemetry.NONE).metrics(policy, health);
            RateLimiter limiter = new RateLimiter(policy, store, callerStore, DecisionObserver.both(health, metrics));
            metrics.watch(limiter);
            return new RateLimitRuntime(settings, limiter, resolver, callerLimits, stores, metrics,
                    observability.status(), health, properties);
        }
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
