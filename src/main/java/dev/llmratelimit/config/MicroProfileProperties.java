package dev.llmratelimit.config;

import dev.llmratelimit.policy.PolicyParser;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.ConfigValue;
import org.eclipse.microprofile.config.spi.ConfigSource;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads every {@code llm.ratelimit.*} property through the portable MicroProfile Config API, so any
 * implementation works (SmallRye, Payara's, Open Liberty's). Only touched when the API is present.
 */
public final class MicroProfileProperties {

    private MicroProfileProperties() {
    }

    /** Whether the MicroProfile Config API is here and an implementation answers it. */
    static boolean implemented() {
        try {
            Class.forName("org.eclipse.microprofile.config.ConfigProvider", false,
                    MicroProfileProperties.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
        return hasImplementation();
    }

    private static boolean hasImplementation() {
        try {
            ConfigProvider.getConfig();
            return true;
        } catch (IllegalStateException | java.util.ServiceConfigurationError | LinkageError e) {
            return false;     // the API without an implementation: "No ConfigProviderResolver implementation found"
        }
    }

    static Map<String, String> read() {
        return read(ConfigProvider.getConfig());
    }

    /**
     * The {@code llm.ratelimit.*} properties of the given configuration. Names come from every source
     * as it lists them now (an implementation may cache {@link Config#getPropertyNames()}), so a
     * reload sees names a dynamic source added. Values of a {@link ConfigFileSource} are left out:
     * the runtime reads that file itself, fresh.
     */
    public static Map<String, String> read(Config config) {
        Set<String> names = new TreeSet<>();
        for (ConfigSource source : config.getConfigSources()) {
            for (String name : source.getPropertyNames()) {
                if (name.startsWith(PolicyParser.PREFIX)) {
                    names.add(name);
                }
            }
        }
        Map<String, String> properties = new HashMap<>();
        for (String name : names) {
            ConfigValue value = config.getConfigValue(name);
            if (value.getValue() != null && !value.getValue().isEmpty() && !ConfigFileSource.isThisSource(value.getSourceName())) {
                properties.put(name, value.getValue());
            }
        }
        return properties;
    }
}
