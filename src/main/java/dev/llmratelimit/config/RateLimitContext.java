package dev.llmratelimit.config;

import dev.llmratelimit.identity.CallerResolver;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

/**
 * The application-wide runtime where the container has CDI: built once from MicroProfile Config,
 * with the application's own {@link CallerResolver} bean when it has one.
 */
@ApplicationScoped
public class RateLimitContext {

    @Inject
    Instance<CallerResolver> callerResolvers;

    private RateLimitRuntime runtime;

    @PostConstruct
    void start() {
        runtime = RateLimitRuntime.create(RateLimitProperties.fromMicroProfileConfig(), applicationCallerResolver());
        runtime.configurationOrigin("MicroProfile Config");
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
