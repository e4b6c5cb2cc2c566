package dev.llmratelimit.config;

import dev.llmratelimit.config.ConfigurationLoader.LoadedConfiguration;
import dev.llmratelimit.budget.BudgetPolicy;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.BudgetExtension;
import dev.llmratelimit.engine.DecisionObserver;
import dev.llmratelimit.engine.PlanExtension;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.identity.Caller;
import dev.llmratelimit.identity.CallerLimitPolicy;
import dev.llmratelimit.identity.CallerResolver;
import dev.llmratelimit.observe.BudgetReader;
import dev.llmratelimit.observe.Metrics;
import dev.llmratelimit.observe.ObservabilitySettings;
import dev.llmratelimit.observe.RecentActivity;
import dev.llmratelimit.observe.StatusReader;
import dev.llmratelimit.observe.SoftBudgetWarnings;
import dev.llmratelimit.observe.StatusSettings;
import dev.llmratelimit.observe.StoreHealth;
import dev.llmratelimit.observe.Telemetry;
import dev.llmratelimit.policy.EnforcementMode;
import dev.llmratelimit.policy.FallbackPolicy;
import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.policy.WaitPolicy;
import dev.llmratelimit.store.OutstandingAdmissions;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.usage.TokenCounter;
import dev.llmratelimit.wait.WaitRoom;

import java.lang.System.Logger.Level;
import java.security.Principal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

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
    private final Observability observability;
    private final StatusReader statusReader;

    /** A runtime over a limiter the caller built; it has no configuration to reload, no metrics and no status page. */
    public RateLimitRuntime(FilterSettings settings, RateLimiter limiter, CallerResolver callerResolver,
                            CallerLimitPolicy callerLimits, AutoCloseable stores) {
        this(new Stores(null, new StoreHealth("memory", Map.of(), Clock.systemUTC()), stores), null,
                callerResolver, Clock.systemUTC(), new Observability(Telemetry.NONE, ObservabilitySettings.parse(Map.of())),
                new Active(Map.of(), new RuntimeConfiguration(settings, limiter.policy(), callerLimits, callerResolver,
                        FallbackPolicy.NONE, null, BudgetPolicy.NONE, Optional.empty()), limiter, Metrics.NONE), "a limiter built in code");
    }

    private RateLimitRuntime(Stores stores, ConfigurationLoader loader, CallerResolver applicationResolver, Clock clock,
                             Observability observability, Active active, String origin) {
        this.stores = stores;
        this.loader = loader;
        this.applicationResolver = applicationResolver;
        this.clock = clock;
        this.observability = observability;
        this.active = active;
        this.status = ConfigurationStatus.loaded(origin, clock.instant());
        this.waitRoom = waitRoom(active.configuration());
        this.tokenizers = TokenCounter.warmUp(active.configuration().policy().models().keySet());
        this.statusReader = new StatusReader(this::limiter, stores.health(), this::statusPageConfiguration,
                new BudgetReader(() -> this.active.configuration().budgets(), stores.store(), clock), observability.recent(), clock);
    }

    /** Where refused requests wait (docs/instead-of-429.md): made once, at start-up, when waiting is configured. */
    private static WaitRoom waitRoom(RuntimeConfiguration configuration) {
        WaitPolicy waiting = configuration.waitPolicy();
        if (waiting == null || !waiting.waits() || configuration.policy().mode() == EnforcementMode.SHADOW) {
            return null;
        }
        return new WaitRoom(Clock.systemUTC(), new WaitRoom.Capacity(waiting.maxWaiters(), waiting.maxWaitingBytes(),
                waiting.maxWaitersPerCaller()), waiting.pollInterval());
    }

    /**
     * Builds the runtime; invalid configuration fails here with a message naming the property.
     *
     * @param callerResolver the application's own resolver, or {@code null} for the configured one
     */
    public static RateLimitRuntime create(Map<String, String> properties, CallerResolver callerResolver) {
        return create(ConfigurationLoader.fixed(properties), callerResolver, Clock.systemUTC());
    }

    /** Builds the runtime from these properties on this clock (see {@link #create(ConfigurationLoader, CallerResolver, Clock)}). */
    public static RateLimitRuntime create(Map<String, String> properties, CallerResolver callerResolver, Clock clock) {
        return create(ConfigurationLoader.fixed(properties), callerResolver, clock);
    }

    /**
     * Builds the runtime from what the loader reads now, and again at every reload.
     *
     * @param callerResolver the application's own resolver (kept across reloads), or {@code null}
     *                       for the configured one
     * @param clock          stamps the {@link #configurationStatus()}; the clock of the memory store, of
     *                       budget periods and of the engine (tests move it; Redis windows keep the server's time)
     */
    public static RateLimitRuntime create(ConfigurationLoader loader, CallerResolver callerResolver, Clock clock) {
        return create(loader, callerResolver, clock, Telemetry.fromEnvironment());
    }

    /** Builds the runtime with metrics into this telemetry (unless {@code metrics.enabled=false}). */
    public static RateLimitRuntime create(Map<String, String> properties, CallerResolver callerResolver,
                                          Telemetry telemetry) {
        return create(ConfigurationLoader.fixed(properties), callerResolver, Clock.systemUTC(), telemetry);
    }

    /**
     * Builds the runtime from what the loader reads now, and again at every reload, with metrics into
     * this telemetry (unless {@code metrics.enabled=false}; the metrics and status-page settings are
     * read at start-up only).
     */
    public static RateLimitRuntime create(ConfigurationLoader loader, CallerResolver callerResolver, Clock clock,
                                          Telemetry telemetry) {
        LoadedConfiguration loaded = loader.load();
        RuntimeConfiguration configuration = RuntimeConfiguration.parse(loaded.properties(), callerResolver);
        Stores stores;
        try {
            stores = stores(configuration, loaded.properties(), clock);
        } catch (RuntimeException e) {
            throw SecretValues.hidden(e, loaded.properties());
        }
        Observability observability = new Observability(telemetry, ObservabilitySettings.parse(loaded.properties()),
                new RecentActivity(clock));
        RateLimitRuntime runtime = new RateLimitRuntime(stores, loader, callerResolver, clock, observability,
                active(loaded.properties(), configuration, stores, observability, clock), loaded.origin());
        runtime.logApplied("Loaded", loaded);
        configuration.reloadInterval().ifPresent(interval -> {
            LOG.log(Level.INFO, "Re-reading the rate-limit configuration every " + interval);
            runtime.schedule = new ReloadSchedule(interval, runtime::reload);
        });
        return runtime;
    }

    /**
     * The one place a limiter is built from a policy: at start-up and at every reload, over the same
     * stores, observed by the stores' health and by meters made for this policy's models and pools.
     */
    private static Active active(Map<String, String> properties, RuntimeConfiguration configuration, Stores stores,
                                 Observability observability, Clock clock) {
        RateLimitPolicy policy = configuration.policy();
        if (!configuration.budgets().isEmpty() && !stores.takesBudgets()) {
            throw new PolicyException(BudgetStores.STORE, "jdbc", "the budget database is opened at start-up when"
                    + " budgets are configured; budgets added by a reload need a restart");
        }
        Metrics metrics = observability.metricsFor(policy, stores.health());
        try {
            List<PlanExtension> extensions = configuration.budgets().isEmpty() ? List.of()
                    : List.of(new BudgetExtension(configuration.budgets(), clock));
            DecisionObserver observer = DecisionObserver.both(DecisionObserver.both(stores.health(), metrics), observability.recent());
            observability.recent().keepOnly(policy.models().keySet());
            if (!extensions.isEmpty()) {
                observer = DecisionObserver.both(observer, new SoftBudgetWarnings(metrics, clock));
            }
            RateLimiter limiter = new RateLimiter(policy, stores.store(), clock,
                    configuration.callerLimits().leaseMillis(), extensions, observer);
            metrics.watch(limiter);
            if (!configuration.budgets().isEmpty()) {
                metrics.watchBudgets(new BudgetReader(configuration::budgets, stores.store(), clock));
            }
            return new Active(properties, configuration, limiter, metrics);
        } catch (RuntimeException | LinkageError e) {
            metrics.close();       // its gauge callbacks must not outlive a policy that never ran
            throw e;
        }
    }

    /** The counter store and, with {@code budget.store=jdbc}, the budget database beside it: made once, at start-up. */
    private static Stores stores(RuntimeConfiguration configuration, Map<String, String> properties, Clock clock) {
        Stores counters = configuration.settings().store().equals("redis") ? RedisRuntime.stores(properties)
                : new Stores(new MemoryAdmissionStore(clock), new StoreHealth("memory", Map.of(), clock), () -> { });
        Stores all = BudgetStores.around(counters, properties, configuration, clock);
        OutstandingAdmissions outstanding = new OutstandingAdmissions(all.store());
        Duration grace = StopGrace.parse(properties);
        AutoCloseable closer = all.closer();
        return new Stores(outstanding, all.health(), () -> {
            try (closer) {
                outstanding.stop(grace);
            }
        }, all.takesBudgets());
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
            Active previous = active;
            active = active(loaded.properties(), next, stores, observability, clock);
            previous.metrics().close();
            status = ConfigurationStatus.loaded(loaded.origin(), now);
            logApplied("Reloaded", loaded);
            return true;
        } catch (RuntimeException | LinkageError e) {
            String error = SecretValues.hide(String.valueOf(e.getMessage()), active.properties());
            if (!error.equals(status.lastError())) {
                LOG.log(Level.WARNING, "Ignored an invalid rate-limit configuration (the running policy stays): " + error);
            }
            status = status.refused(now, error);
            return false;
        }
    }

    private void logApplied(String verb, LoadedConfiguration loaded) {
        if (PolicyTable.limitsNothing(active.configuration(), loaded.properties())) {
            LOG.log(Level.WARNING, "llm-ratelimit-filter limits nothing: no model, caller or budget limit was found in "
                    + loaded.origin() + (loaded.origin().contains(ConfigFiles.PROPERTY) ? "" : " (and no "
                    + ConfigFiles.PROPERTY + " names a file)") + ". Every request passes untouched.");
        }
        LOG.log(Level.INFO, verb + " the rate-limit configuration from " + loaded.origin() + " at " + status.loadedAt()
                + ": " + PolicyTable.summary(active.configuration().policy()));
        loaded.notes().forEach(note -> LOG.log(Level.INFO, note));
        loaded.warnings().forEach(warning -> LOG.log(Level.WARNING, warning));
    }

    /** The running configuration as the status page shows it: origin, fingerprint, load and last reload attempt. */
    private dev.llmratelimit.observe.ConfigurationStatus statusPageConfiguration() {
        ConfigurationStatus current = status;
        dev.llmratelimit.observe.ConfigurationStatus shown = dev.llmratelimit.observe.ConfigurationStatus.loaded(
                current.origin(), active.properties(), current.loadedAt());
        return current.lastCheckedAt().equals(current.loadedAt()) && current.lastError() == null ? shown
                : shown.reloaded(new dev.llmratelimit.observe.ConfigurationStatus.Reload(current.lastCheckedAt(),
                        current.lastError() == null, current.lastError()));
    }

    /** The meters of the running policy; budgets report their spend through {@link Metrics#spent}. */
    public Metrics metrics() {
        return active.metrics();
    }

    public StatusSettings statusSettings() {
        return observability.settings().status();
    }

    /** Reads what the status page shows. */
    public StatusReader status() {
        return statusReader;
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

    /** The caller behind a request's principal ({@code null}: unauthenticated), as the running configuration resolves it. */
    public ResolvedCaller resolve(Principal principal) {
        RuntimeConfiguration configuration = active.configuration();
        return new ResolvedCaller(principal, configuration.callerResolver().resolve(principal), configuration);
    }

    /**
     * Decides a caller's request on one configuration: its limiter, its caller limits and its
     * resolver's caller (resolved again when a reload came since {@code who} was). Reading them
     * apart, a reload in between would decide on the new limits with the old caller's.
     *
     * @param request the request of the caller (its priorities and budget identity come from it)
     */
    public Admission admit(ResolvedCaller who, Function<Caller, AdmissionRequest> request) {
        Active current = active;
        RuntimeConfiguration configuration = current.configuration();
        Caller caller = who.by() == configuration ? who.caller() : configuration.callerResolver().resolve(who.principal());
        return current.limiter().admit(request.apply(caller).withCallers(configuration.callerLimits().planFor(caller)));
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
        active.metrics().close();
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

    /**
     * The configuration in force, its properties (to see whether a reading changed anything), its
     * limiter and the meters made for its models and pools.
     */
    private record Active(Map<String, String> properties, RuntimeConfiguration configuration, RateLimiter limiter,
                          Metrics metrics) {
    }

    /** The store every limiter of this runtime shares, its health, and how to close it. */
    /**
     * @param takesBudgets whether budgets may be configured: {@code false} when they belong in a
     *                     budget database ({@code budget.store=jdbc}) that was not opened at start-up
     */
    record Stores(AdmissionStore store, StoreHealth health, AutoCloseable closer, boolean takesBudgets) {

        Stores(AdmissionStore store, StoreHealth health, AutoCloseable closer) {
            this(store, health, closer, true);
        }
    }

    /** Where meters go and whether there are any (read at start-up), and the recent decisions the status page draws. */
    private record Observability(Telemetry telemetry, ObservabilitySettings settings, RecentActivity recent) {

        Observability(Telemetry telemetry, ObservabilitySettings settings) {
            this(telemetry, settings, new RecentActivity(Clock.systemUTC()));
        }

        /**
         * The meters, or none where the container's OpenTelemetry API cannot make them (an older API
         * than the one compiled against, as Payara 6 ships): metrics must never stop the application.
         */
        Metrics metricsFor(RateLimitPolicy policy, StoreHealth health) {
            try {
                return (settings.metricsEnabled() ? telemetry : Telemetry.NONE).metrics(policy, health);
            } catch (LinkageError | RuntimeException e) {
                LOG.log(Level.WARNING, "OpenTelemetry metrics are off: the OpenTelemetry API here cannot make them", e);
                return Telemetry.NONE.metrics(policy, health);
            }
        }
    }
}
