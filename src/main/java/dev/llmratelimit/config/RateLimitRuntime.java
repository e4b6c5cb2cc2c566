package dev.llmratelimit.config;

import dev.llmratelimit.config.ConfigurationLoader.LoadedConfiguration;
import dev.llmratelimit.engine.CallerLimitStore;
import dev.llmratelimit.engine.CounterStore;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.identity.CallerLimitPolicy;
import dev.llmratelimit.identity.CallerResolver;
import dev.llmratelimit.policy.EnforcementMode;
import dev.llmratelimit.policy.FallbackPolicy;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.policy.WaitPolicy;
import dev.llmratelimit.store.memory.MemoryCallerLimitStore;
import dev.llmratelimit.store.memory.MemoryCounterStore;
import dev.llmratelimit.usage.TokenCounter;
import dev.llmratelimit.wait.WaitRoom;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Everything the filter needs, built from the {@code llm.ratelimit.*} properties: the engine with
 * its stores, the caller resolver, the per-caller limit policy and the servlet settings. With
 * {@code llm.ratelimit.reload-interval} (or {@link #reload()} from code) it re-reads its
 * configuration and swaps the policy atomically over the same stores, so the live window's counters
 * of models and pools that still exist are kept. Closing it closes the stores (and the Redis client
 * they share).
 */
public final class RateLimitRuntime implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(RateLimitRuntime.class.getName());

    private final Stores stores;
    private final ConfigurationLoader loader;
    private final CallerResolver applicationResolver;
    private final Clock clock;
    private volatile Active active;
    private volatile ConfigurationStatus status;
    private final WaitRoom waitRoom;
    private ReloadSchedule schedule;
    private final CompletableFuture<Set<String>> tokenizers;

    /** A runtime over a limiter the caller built; it has no configuration to reload. */
    public RateLimitRuntime(FilterSettings settings, RateLimiter limiter, CallerResolver callerResolver,
                            CallerLimitPolicy callerLimits, AutoCloseable stores) {
        this(new Stores(null, null, stores), null, callerResolver, Clock.systemUTC(),
                new Active(Map.of(), new RuntimeConfiguration(settings, limiter.policy(), callerLimits, callerResolver,
                        FallbackPolicy.NONE, null, Optional.empty()), limiter), "a limiter built in code");
    }

    private RateLimitRuntime(Stores stores, ConfigurationLoader loader, CallerResolver applicationResolver, Clock clock,
                             Active active, String origin) {
        this.stores = stores;
        this.loader = loader;
        this.applicationResolver = applicationResolver;
        this.clock = clock;
        this.active = active;
        this.status = ConfigurationStatus.loaded(origin, clock.instant());
        this.waitRoom = waitRoom(active.configuration());
        this.tokenizers = TokenCounter.warmUp(active.configuration().policy().models().keySet());
    }

    /** Where refused requests wait (SPEC section 15): made once, at start-up, when waiting is configured. */
    private static WaitRoom waitRoom(RuntimeConfiguration configuration) {
        WaitPolicy waiting = configuration.waitPolicy();
        if (waiting == null || !waiting.waits() || configuration.policy().mode() == EnforcementMode.SHADOW) {
            return null;
        }
        return new WaitRoom(Clock.systemUTC(), waiting.maxWaiters(), waiting.pollInterval());
    }

    /**
     * Builds the runtime; invalid configuration fails here with a message naming the property.
     *
     * @param callerResolver the application's own resolver, or {@code null} for the configured one
     */
    public static RateLimitRuntime create(Map<String, String> properties, CallerResolver callerResolver) {
        return create(ConfigurationLoader.fixed(properties), callerResolver, Clock.systemUTC());
    }

    /**
     * Builds the runtime from what the loader reads now, and again at every reload.
     *
     * @param callerResolver the application's own resolver (kept across reloads), or {@code null}
     *                       for the configured one
     * @param clock          stamps the {@link #configurationStatus()}
     */
    public static RateLimitRuntime create(ConfigurationLoader loader, CallerResolver callerResolver, Clock clock) {
        LoadedConfiguration loaded = loader.load();
        RuntimeConfiguration configuration = RuntimeConfiguration.parse(loaded.properties(), callerResolver);
        Stores stores = stores(configuration.settings(), loaded.properties());
        RateLimitRuntime runtime = new RateLimitRuntime(stores, loader, callerResolver, clock,
                new Active(loaded.properties(), configuration, limiterFor(configuration.policy(), stores)), loaded.origin());
        runtime.logApplied("Loaded", loaded);
        configuration.reloadInterval().ifPresent(interval -> {
            LOG.log(Level.INFO, "Re-reading the rate-limit configuration every " + interval);
            runtime.schedule = new ReloadSchedule(interval, runtime::reload);
        });
        return runtime;
    }

    /** The one place a limiter is built from a policy: at start-up and at every reload, over the same stores. */
    private static RateLimiter limiterFor(RateLimitPolicy policy, Stores stores) {
        return new RateLimiter(policy, stores.counters(), stores.callers());
    }

    private static Stores stores(FilterSettings settings, Map<String, String> properties) {
        if (!settings.store().equals("redis")) {
            return new Stores(new MemoryCounterStore(), new MemoryCallerLimitStore(), () -> { });
        }
        return RedisRuntime.stores(properties);
    }

    /**
     * Reads the configuration again and, when it changed and is valid, swaps it in atomically. An
     * invalid configuration is logged with its message and ignored: the running policy stays.
     * Requests already admitted finish on the limiter that admitted them.
     *
     * @return whether a changed configuration was applied
     * @throws IllegalStateException for a runtime built over a given limiter
     */
    public synchronized boolean reload() {
        if (loader == null) {
            throw new IllegalStateException("This runtime was built over a given limiter: it has nothing to reload");
        }
        Instant now = clock.instant();
        try {
            LoadedConfiguration loaded = loader.load();
            if (loaded.properties().equals(active.properties())) {
                status = status.checked(now);
                return false;
            }
            RuntimeConfiguration next = RuntimeConfiguration.parse(loaded.properties(), applicationResolver);
            RestartOnlyProperties.warnIfChanged(active.properties(), loaded.properties(), waitRoom == null && next.waitPolicy().waits());
            active = new Active(loaded.properties(), next, limiterFor(next.policy(), stores));
            status = ConfigurationStatus.loaded(loaded.origin(), now);
            logApplied("Reloaded", loaded);
            return true;
        } catch (RuntimeException | LinkageError e) {
            String error = String.valueOf(e.getMessage());
            if (!error.equals(status.lastError())) {
                LOG.log(Level.WARNING, "Ignored an invalid rate-limit configuration (the running policy stays): " + error);
            }
            status = status.refused(now, error);
            return false;
        }
    }

    private void logApplied(String verb, LoadedConfiguration loaded) {
        LOG.log(Level.INFO, verb + " the rate-limit configuration from " + loaded.origin() + " at " + status.loadedAt()
                + ": " + PolicyTable.summary(active.configuration().policy()));
        loaded.notes().forEach(note -> LOG.log(Level.INFO, note));
    }

    /** What the running configuration was loaded from, when, and why the last reading was refused, if it was. */
    public ConfigurationStatus configurationStatus() {
        return status;
    }

    public FilterSettings settings() {
        return active.configuration().settings();
    }

    public RateLimiter limiter() {
        return active.limiter();
    }

    public CallerResolver callerResolver() {
        return active.configuration().callerResolver();
    }

    /** Turns a resolved caller into the per-caller counters its request must pass. */
    public CallerLimitPolicy callerLimits() {
        return active.configuration().callerLimits();
    }

    /**
     * Completes, with the names of the encodings loaded, once no request has to load a tokenizer
     * (those of the models configured at start-up; {@link TokenCounter#warmUp}).
     */
    public CompletableFuture<Set<String>> tokenizersWarmedUp() {
        return tokenizers;
    }

    /** The fallback models of each model. */
    public FallbackPolicy fallbacks() {
        return active.configuration().fallbacks();
    }

    /** How long refused requests may wait; {@code null} for a runtime built without properties. */
    public WaitPolicy waitPolicy() {
        return active.configuration().waitPolicy();
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
        if (schedule != null) {
            schedule.close();
        }
        if (waitRoom != null) {
            waitRoom.close();
        }
        try {
            stores.closer().close();
        } catch (Exception e) {
            throw new IllegalStateException("Could not close the counter stores", e);
        }
    }

    /** The configuration in force, its properties (to see whether a reading changed anything) and its limiter. */
    private record Active(Map<String, String> properties, RuntimeConfiguration configuration, RateLimiter limiter) {
    }

    /** The stores every limiter of this runtime shares, and how to close them. */
    record Stores(CounterStore counters, CallerLimitStore callers, AutoCloseable closer) {
    }
}
