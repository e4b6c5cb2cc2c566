package dev.llmratelimit.observe;

import dev.llmratelimit.policy.RateLimitPolicy;

/**
 * Where metrics go. Has no OpenTelemetry type in it, so the library loads without the
 * OpenTelemetry API; {@link #fromEnvironment()} finds the application's OpenTelemetry when the API
 * is there, and {@code dev.llmratelimit.observe.otel.OpenTelemetryTelemetry.of(openTelemetry)}
 * names one explicitly.
 */
public interface Telemetry {

    Telemetry NONE = (policy, health) -> Metrics.NONE;

    /** The meters for one runtime with this policy; the store's failures and circuits come from {@code health}. */
    Metrics metrics(RateLimitPolicy policy, StoreHealth health);

    /**
     * The OpenTelemetry the application has: its CDI bean (MicroProfile Telemetry), else the global
     * one ({@code GlobalOpenTelemetry}, a no-op until an SDK registers itself); {@link #NONE} when the
     * OpenTelemetry API is not on the class path.
     */
    static Telemetry fromEnvironment() {
        return OpenTelemetryApi.PRESENT ? dev.llmratelimit.observe.otel.OpenTelemetryTelemetry.fromEnvironment() : NONE;
    }
}
