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
        if (!OpenTelemetryApi.PRESENT) {
            return NONE;
        }
        try {
            return dev.llmratelimit.observe.otel.OpenTelemetryTelemetry.fromEnvironment();
        } catch (LinkageError | RuntimeException e) {
            // An OpenTelemetry API older than the one compiled against (Payara 6 ships one): no meters, never no start.
            System.getLogger(Telemetry.class.getName()).log(System.Logger.Level.WARNING,
                    "OpenTelemetry metrics are off: the OpenTelemetry API here cannot make them", e);
            return NONE;
        }
    }
}
