package dev.llmratelimit.config;

import dev.llmratelimit.identity.CallerResolver;
import dev.llmratelimit.observe.Telemetry;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import java.time.Clock;

/**
 * The application-wide runtime where the container has CDI: built once from MicroProfile Config,
 * with the application's own {@link CallerResolver} bean when it has one.
 */
@ApplicationScoped
public class RateLimitContext {

    @Inject
    Instance<CallerResolver> callerResolvers;

    private RateLimitRuntime runtime;

    private static final System.Logger LOG = System.getLogger(RateLimitContext.class.getName());

    @PostConstruct
    void start() {
        runtime = startRuntime(RateLimitProperties.loader(), applicationCallerResolver());
    }

    /**
     * Builds the runtime when the application starts; a failure is logged with its message before it
     * fails the deployment, since not every server's log shows the cause (Payara shows only Weld's
     * wrapper).
     */
    public static RateLimitRuntime startRuntime(ConfigurationLoader loader, CallerResolver callerResolver) {
        return startRuntime(loader, callerResolver, Telemetry.fromEnvironment());
    }

    /** Builds the runtime when the application starts, with metrics into this telemetry (see {@link #startRuntime(ConfigurationLoader, CallerResolver)}). */
    public static RateLimitRuntime startRuntime(ConfigurationLoader loader, CallerResolver callerResolver,
                                                Telemetry telemetry) {
        try {
            return RateLimitRuntime.create(loader, callerResolver, Clock.systemUTC(), telemetry);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "llm-ratelimit-filter cannot start, so neither can the application: "
                    + e.getMessage());
            throw e;
        }
    }

    /**
     * Builds the runtime when the application starts (observing the event creates this bean), so
     * invalid configuration fails the deployment also where only the interceptor is used.
     */
    void startWithApplication(@Observes @Initialized(ApplicationScoped.class) Object application) {
        // the bean's @PostConstruct did the work
    }

    /** The application's own {@link CallerResolver} bean, or {@code null} when it has none. */
    public CallerResolver applicationCallerResolver() {
        return callerResolvers.isResolvable() ? callerResolvers.get() : null;
    }

    @PreDestroy
    void stop() {
        runtime.close();
    }

    public RateLimitRuntime runtime() {
        return runtime;
    }
}
