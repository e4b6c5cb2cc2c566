package dev.llmratelimit.store;

import dev.llmratelimit.policy.Durations;
import dev.llmratelimit.policy.PolicyException;

import java.time.Duration;
import java.util.Map;

/**
 * When a failing store is skipped: after {@code failureThreshold} consecutive failures, for
 * {@code backoff}, then probed with one call every {@code probeInterval} until one succeeds.
 */
public record CircuitBreakerSettings(int failureThreshold, Duration backoff, Duration probeInterval) {

    public static final String FAILURE_THRESHOLD = "llm.ratelimit.store-failure-threshold";
    public static final String BACKOFF = "llm.ratelimit.store-backoff";
    public static final String PROBE_INTERVAL = "llm.ratelimit.store-probe-interval";

    /** A circuit whose probes follow each other at the back-off (no probe interval of their own). */
    public CircuitBreakerSettings(int failureThreshold, Duration backoff) {
        this(failureThreshold, backoff, backoff);
    }

    public static CircuitBreakerSettings parse(Map<String, String> properties) {
        String thresholdText = properties.getOrDefault(FAILURE_THRESHOLD, "3").trim();
        int threshold;
        try {
            threshold = Integer.parseInt(thresholdText);
        } catch (NumberFormatException e) {
            threshold = 0;
        }
        if (threshold < 1) {
            throw new PolicyException(FAILURE_THRESHOLD, thresholdText, "expected a whole number, 1 or more");
        }
        return new CircuitBreakerSettings(threshold, positive(properties, BACKOFF, "1s"),
                positive(properties, PROBE_INTERVAL, "250ms"));
    }

    private static Duration positive(Map<String, String> properties, String name, String defaultValue) {
        String text = properties.getOrDefault(name, defaultValue);
        Duration duration = Durations.parse(name, text);
        if (duration.isZero() || duration.isNegative()) {
            throw new PolicyException(name, text, "the duration must be longer than zero");
        }
        return duration;
    }
}
