package dev.llmratelimit.config;

import dev.llmratelimit.policy.PolicyParser;

import java.util.Enumeration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Collects the {@code llm.ratelimit.*} properties of the application: through MicroProfile Config
 * where the container has an implementation, otherwise from the same default sources read by us
 * ({@link DefaultConfigSources}); filter init-params may overlay them.
 */
public final class RateLimitProperties {

    private RateLimitProperties() {
    }

    /** The application's properties and where they were found, read now. */
    public static ConfigurationLoader.Source fromApplication() {
        if (MicroProfileProperties.implemented()) {
            return new ConfigurationLoader.Source("MicroProfile Config", MicroProfileProperties.read());
        }
        return DefaultConfigSources.read();
    }

    /** The application's properties, re-read at every reload. */
    public static ConfigurationLoader loader() {
        return ConfigurationLoader.reading(RateLimitProperties::fromApplication);
    }

    /** The application's properties overlaid with the init-params of a filter, re-read at every reload. */
    public static ConfigurationLoader loader(String filterName, Supplier<Enumeration<String>> names,
                                           Function<String, String> values) {
        return ConfigurationLoader.reading(() -> {
            ConfigurationLoader.Source base = fromApplication();
            return new ConfigurationLoader.Source(base.origin() + " and init-params of filter " + filterName,
                    withInitParameters(base.properties(), names.get(), values));
        });
    }

    /**
     * The properties overlaid with init-params (which win); an init-param may leave out the
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
