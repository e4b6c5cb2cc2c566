package dev.llmratelimit.config;

import dev.llmratelimit.policy.PolicyParser;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import java.util.HashMap;
import java.util.Map;

/**
 * Reads every {@code llm.ratelimit.*} property through the portable MicroProfile Config API, so any
 * implementation works (SmallRye, Payara's, Open Liberty's). Only touched when the API is present.
 */
public final class MicroProfileProperties {

    private MicroProfileProperties() {
    }

    static boolean available() {
        try {
            Class.forName("org.eclipse.microprofile.config.ConfigProvider", false,
                    MicroProfileProperties.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    static Map<String, String> read() {
        return read(ConfigProvider.getConfig());
    }

    /** The {@code llm.ratelimit.*} properties of the given configuration. */
    public static Map<String, String> read(Config config) {
        Map<String, String> properties = new HashMap<>();
        for (String name : config.getPropertyNames()) {
            if (name.startsWith(PolicyParser.PREFIX)) {
                config.getOptionalValue(name, String.class).ifPresent(value -> properties.put(name, value));
            }
        }
        return properties;
    }
}
