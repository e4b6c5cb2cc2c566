package dev.llmratelimit.testsupport;

import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.policy.RateLimitPolicy;

import java.util.HashMap;
import java.util.Map;

/** Builds policies in tests from {@code key=value} lines, without the {@code llm.ratelimit.} prefix. */
public final class Policies {

    private Policies() {
    }

    public static Map<String, String> properties(String... lines) {
        Map<String, String> properties = new HashMap<>();
        for (String line : lines) {
            int equals = line.indexOf('=');
            properties.put(PolicyParser.PREFIX + line.substring(0, equals), line.substring(equals + 1));
        }
        return properties;
    }

    public static RateLimitPolicy policy(String... lines) {
        return PolicyParser.parse(properties(lines));
    }
}
