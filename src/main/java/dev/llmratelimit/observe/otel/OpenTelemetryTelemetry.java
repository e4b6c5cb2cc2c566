package dev.llmratelimit.observe.otel;

import dev.llmratelimit.observe.Metrics;
import dev.llmratelimit.observe.StoreHealth;
import dev.llmratelimit.observe.Telemetry;
import dev.llmratelimit.policy.RateLimitPolicy;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.metrics.Meter;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.CDI;

/** Metrics into one {@link OpenTelemetry}: its meter provider, and spans of its context. */
public final class OpenTelemetryTelemetry implements Telemetry {

    /** The instrumentation scope of every meter. */
    public static final String SCOPE = "dev.llmratelimit";

    private final OpenTelemetry openTelemetry;

    private OpenTelemetryTelemetry(OpenTelemetry openTelemetry) {
        this.openTelemetry = openTelemetry;
    }

    /** Metrics into this OpenTelemetry (an SDK the application built, or the container's). */
    public static Telemetry of(OpenTelemetry openTelemetry) {
        return new OpenTelemetryTelemetry(openTelemetry);
    }

    /**
     * The container's OpenTelemetry CDI bean (MicroProfile Telemetry), else the global one if an SDK
     * has registered it; otherwise none. The global one is never asked for while unset, because
     * asking would fix it to a no-op and make a later registration by the application fail.
     */
    public static Telemetry fromEnvironment() {
        OpenTelemetry bean = cdiBean();
        if (bean != null) {
            return of(bean);
        }
        return GlobalOpenTelemetry.isSet() ? of(GlobalOpenTelemetry.get()) : NONE;
    }

    private static OpenTelemetry cdiBean() {
        try {
            Instance<OpenTelemetry> beans = CDI.current().select(OpenTelemetry.class);
            return beans.isResolvable() ? beans.get() : null;
        } catch (IllegalStateException | LinkageError e) {
            return null;                               // no CDI container here, or no CDI API
        }
    }

    @Override
    public Metrics metrics(RateLimitPolicy policy, StoreHealth health) {
        Meter meter = openTelemetry.getMeter(SCOPE);
        return new OpenTelemetryMetrics(meter, policy, health);
    }
}
