package dev.llmratelimit.observe.micrometer;

import dev.llmratelimit.observe.Metrics;
import dev.llmratelimit.observe.StoreHealth;
import dev.llmratelimit.observe.Telemetry;
import dev.llmratelimit.policy.RateLimitPolicy;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Metrics into a Micrometer {@link MeterRegistry}: what a Spring Boot application's actuator shows
 * ({@code /actuator/metrics}, {@code /actuator/prometheus}). Only this package names Micrometer types,
 * and it is loaded only where Micrometer is.
 */
public final class MicrometerTelemetry implements Telemetry {

    private final MeterRegistry registry;

    private MicrometerTelemetry(MeterRegistry registry) {
        this.registry = registry;
    }

    public static Telemetry of(MeterRegistry registry) {
        return new MicrometerTelemetry(registry);
    }

    @Override
    public Metrics metrics(RateLimitPolicy policy, StoreHealth health) {
        return new MicrometerMetrics(registry, policy, health);
    }
}
