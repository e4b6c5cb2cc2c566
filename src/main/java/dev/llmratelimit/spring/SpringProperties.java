package dev.llmratelimit.spring;

import dev.llmratelimit.config.KnownProperties;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.policy.PropertyNames;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The library's {@code llm.ratelimit.*} properties from a Spring {@link Environment}, under the names the
 * library reads, each value read through the environment so the source that wins in Spring wins here.
 *
 * <p>Names are found in two ways. Every name the library knows without a part the operator chooses
 * ({@code llm.ratelimit.store}, {@code llm.ratelimit.on-internal-error}) is asked of the environment,
 * which applies Spring's relaxed binding: {@code onInternalError} in application.yml, the variable
 * {@code LLM_RATELIMIT_ON_INTERNAL_ERROR}. Names with a chosen part (a model, a principal) are taken as
 * they are written in a property source; Spring's bracket notation {@code models[gpt-4.1].tpm} becomes
 * {@code models."gpt-4.1".tpm}. An environment variable then changes such a name (the environment
 * finds {@code LLM_RATELIMIT_MODELS_GPT4O_TPM} for {@code llm.ratelimit.models.gpt4o.tpm}) but cannot
 * introduce it.
 */
public final class SpringProperties {

    private SpringProperties() {
    }

    /** Every {@code llm.ratelimit.*} property the environment has, read now. */
    public static Map<String, String> all(Environment environment) {
        Map<String, String> springNames = new LinkedHashMap<>();
        for (String name : KnownProperties.fixedNames()) {
            springNames.put(name, name);
        }
        if (environment instanceof ConfigurableEnvironment configurable) {
            configurable.getPropertySources().forEach(source -> {
                if (source instanceof EnumerablePropertySource<?> enumerable) {
                    for (String name : enumerable.getPropertyNames()) {
                        if (name.startsWith(PolicyParser.PREFIX) && !isRelaxedFixedName(name)) {
                            springNames.putIfAbsent(libraryName(name), name);
                        }
                    }
                }
            });
        }
        Map<String, String> properties = new TreeMap<>();
        springNames.forEach((libraryName, springName) -> {
            String value = environment.getProperty(springName);
            if (value != null) {
                properties.put(libraryName, value);
            }
        });
        return properties;
    }

    /** The properties whose names start with the prefix, e.g. {@code llm.ratelimit.outbound.}. */
    public static Map<String, String> withPrefix(Environment environment, String prefix) {
        Map<String, String> properties = new TreeMap<>(all(environment));
        properties.keySet().removeIf(name -> !name.startsWith(prefix));
        return properties;
    }

    /** A fixed name written another way ({@code onInternalError}): the environment already answers it under the known name. */
    private static boolean isRelaxedFixedName(String name) {
        if (KnownProperties.isKnown(libraryName(name)) || name.indexOf('[') >= 0) {
            return false;
        }
        ConfigurationPropertyName written = ConfigurationPropertyName.adapt(name, '.');
        List<String> fixed = KnownProperties.fixedNames();
        return fixed.stream().anyMatch(known -> ConfigurationPropertyName.of(known).equals(written));
    }

    /** {@code llm.ratelimit.models[gpt-4.1].tpm} becomes {@code llm.ratelimit.models."gpt-4.1".tpm}. */
    static String libraryName(String springName) {
        StringBuilder name = new StringBuilder(springName.length());
        int at = 0;
        while (at < springName.length()) {
            int open = springName.indexOf('[', at);
            int close = open < 0 ? -1 : springName.indexOf(']', open);
            if (close < 0) {
                name.append(springName, at, springName.length());
                break;
            }
            name.append(springName, at, open).append('.').append(PropertyNames.quote(springName.substring(open + 1, close)));
            at = close + 1;
        }
        return name.toString();
    }
}
