package dev.llmratelimit.config;

import dev.llmratelimit.policy.PolicyParser;

import java.util.Enumeration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/** Collects the {@code llm.ratelimit.*} properties from MicroProfile Config and filter init-params. */
public final class RateLimitProperties {

    private RateLimitProperties() {
    }

    /** MicroProfile Config's properties, or none where the container has no MicroProfile Config. */
    public static Map<String, String> fromMicroProfileConfig() {
        return MicroProfileProperties.available() ? MicroProfileProperties.read() : new HashMap<>();
    }

    /**
     * MicroProfile Config overlaid with init-params (which win); an init-param may leave out the
     * {@code llm.ratelimit.} prefix.
     */
    public static Map<String, String> withInitParameters(Map<String, String> base, Enumeration<String> names,
                                                         Function<String, String> values) {
        Map<String, String> properties = new HashMap<>(base);
        while (names.hasMoreElements()) {
            String name = names.nextElement();
            String key = name.startsWith(PolicyParser.PREFIX) ? name : PolicyParser.PREFIX + name;
            properties.put(key, values.apply(name));
        }
        return properties;
    }
}
