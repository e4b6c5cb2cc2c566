package dev.llmratelimit.store;

import dev.llmratelimit.policy.Durations;
import dev.llmratelimit.policy.PolicyException;

import java.time.Duration;
import java.util.Map;

/**
 * When a failing store is skipped: after {@code failureThreshold} consecutive failures, for
 * {@code backoff}, then probed with one call.
 */
public record CircuitBreakerSettings(int failureThreshold, Duration backoff) {

    public static final String FAILURE_THRESHOLD = "llm.ratelimit.store-failure-threshold";
    public static final String BACKOFF = "llm.ratelimit.store-backoff";

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
        String backoffText = properties.getOrDefault(BACKOFF, "5s");
        Duration backoff = Durations.parse(BACKOFF, backoffText);
        if (backoff.isZero() || backoff.isNegative()) {
            throw new PolicyException(BACKOFF, backoffText, "the back-off must be longer than zero");
        }
        return new CircuitBreakerSettings(threshold, backoff);
    }
}
