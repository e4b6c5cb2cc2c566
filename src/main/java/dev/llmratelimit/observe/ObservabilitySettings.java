package dev.llmratelimit.observe;

import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.policy.PolicyParser;

import java.util.Locale;
import java.util.Map;

/**
 * Whether the library measures ({@code llm.ratelimit.metrics.enabled}, default true: the meters
 * are no-ops anyway until the application has an OpenTelemetry SDK) and where its status page is.
 */
public record ObservabilitySettings(boolean metricsEnabled, StatusSettings status) {

    public static ObservabilitySettings parse(Map<String, String> properties) {
        String property = PolicyParser.PREFIX + "metrics.enabled";
        String text = properties.getOrDefault(property, "true").trim().toLowerCase(Locale.ROOT);
        if (!text.equals("true") && !text.equals("false")) {
            throw new PolicyException(property, text, "expected true or false");
        }
        return new ObservabilitySettings(text.equals("true"), StatusSettings.parse(properties));
    }
}
