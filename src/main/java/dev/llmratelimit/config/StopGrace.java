package dev.llmratelimit.config;

import dev.llmratelimit.policy.Durations;
import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.policy.PolicyParser;

import java.time.Duration;
import java.util.Map;

/** {@code stop-grace-period}: how long a stopping runtime lets the calls in flight finish before it settles them. */
final class StopGrace {

    static final String PROPERTY = PolicyParser.PREFIX + "stop-grace-period";

    private StopGrace() {
    }

    static Duration parse(Map<String, String> properties) {
        String text = properties.getOrDefault(PROPERTY, "5s").trim();
        Duration grace = Durations.parse(PROPERTY, text);
        if (grace.isNegative() || grace.compareTo(Duration.ofHours(1)) > 0) {
            throw new PolicyException(PROPERTY, text, "expected a duration from 0s to 1h");
        }
        return grace;
    }
}
