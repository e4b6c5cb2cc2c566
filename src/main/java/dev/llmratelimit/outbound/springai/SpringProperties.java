package dev.llmratelimit.outbound.springai;

import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;

import java.util.Map;
import java.util.TreeMap;

/**
 * The library's properties from a Spring {@link Environment}: every name under a prefix in any enumerable
 * property source (application.yml, application.properties, system properties), each read through the
 * environment, so the source that wins in Spring wins here too.
 */
final class SpringProperties {

    static final String LIBRARY_PREFIX = "llm.ratelimit.";

    private SpringProperties() {
    }

    static Map<String, String> withPrefix(Environment environment, String prefix) {
        Map<String, String> properties = new TreeMap<>();
        if (!(environment instanceof ConfigurableEnvironment configurable)) {
            return properties;
        }
        configurable.getPropertySources().forEach(source -> {
            if (source instanceof EnumerablePropertySource<?> enumerable) {
                for (String name : enumerable.getPropertyNames()) {
                    if (name.startsWith(prefix) && !properties.containsKey(name)) {
                        String value = environment.getProperty(name);
                        if (value != null) {
                            properties.put(name, value);
                        }
                    }
                }
            }
        });
        return properties;
    }
}
