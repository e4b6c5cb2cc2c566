package dev.llmratelimit.spring;

import dev.llmratelimit.config.KnownProperties;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.policy.PropertyNames;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The library's {@code llm.ratelimit.*} properties from a Spring {@link Environment}, under the names the
 * library reads, each value read through the environment so the source that wins in Spring wins here.
 *
 * <p>Every name the library knows without a part the operator chooses ({@code llm.ratelimit.store}) is
 * asked of the environment, which applies Spring's relaxed binding ({@code onInternalError},
 * {@code LLM_RATELIMIT_ON_INTERNAL_ERROR}). Names with a chosen part (a model, a principal) are found in the
 * property sources: the chosen part as written (Spring's brackets {@code models[gpt-4.1].tpm} for a name
 * with a dot), the fixed parts in any relaxed form ({@code models.gpt-4o.maxWait} is
 * {@code models.gpt-4o.max-wait}); an environment variable names one too, its chosen part one lower-case
 * word ({@code LLM_RATELIMIT_MODELS_GPT4O_TPM} is {@code models.gpt4o.tpm}). A list may be a YAML sequence
 * or a comma-separated value.
 */
public final class SpringProperties {

    private static final Pattern LIST_ELEMENT = Pattern.compile("(.+)\\[\\d+]");

    private SpringProperties() {
    }

    /** Every {@code llm.ratelimit.*} property the environment has, read now. */
    public static Map<String, String> all(Environment environment) {
        Map<String, String> springNames = new LinkedHashMap<>();
        Map<String, String> lists = new LinkedHashMap<>();
        for (String name : KnownProperties.fixedNames()) {
            springNames.put(name, name);
        }
        if (environment instanceof ConfigurableEnvironment configurable) {
            configurable.getPropertySources().forEach(source -> {
                if (source instanceof SystemEnvironmentPropertySource variables) {
                    for (String variable : variables.getPropertyNames()) {
                        String name = RelaxedNames.fromVariable(variable);
                        if (name != null) {
                            springNames.putIfAbsent(name, name);
                        }
                    }
                } else if (source instanceof EnumerablePropertySource<?> enumerable) {
                    for (String springName : enumerable.getPropertyNames()) {
                        if (springName.startsWith(PolicyParser.PREFIX)) {
                            collect(springName, springNames, lists);
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
        Binder binder = Binder.get(environment);
        lists.forEach((libraryName, springName) -> binder
                .bind(ConfigurationPropertyName.adapt(springName, '.'), Bindable.listOf(String.class))
                .ifBound(values -> properties.put(libraryName, String.join(",", values))));
        return properties;
    }

    /**
     * Notes the library's name for a name of a property source: an element of a list ({@code paths[0]}, a
     * YAML sequence) stands for the whole list, which Spring's binder reads (from the source that wins, a
     * comma-separated value or the sequence); any other name is read as it is.
     */
    private static void collect(String springName, Map<String, String> springNames, Map<String, String> lists) {
        Matcher element = LIST_ELEMENT.matcher(springName);
        if (element.matches()) {
            String list = known(element.group(1));
            if (KnownProperties.isKnown(list)) {
                lists.putIfAbsent(list, ConfigurationPropertyName.isValid(list) ? list : element.group(1));
                return;
            }
        }
        String name = known(springName);
        springNames.putIfAbsent(name, ConfigurationPropertyName.isValid(name) ? name : springName);
    }

    /** The known name a Spring name stands for, else the name in the library's notation. */
    private static String known(String springName) {
        String written = libraryName(springName);
        String known = RelaxedNames.fromWritten(written);
        return known != null ? known : written;
    }

    /** The properties whose names start with the prefix, e.g. {@code llm.ratelimit.outbound.}. */
    public static Map<String, String> withPrefix(Environment environment, String prefix) {
        Map<String, String> properties = new TreeMap<>(all(environment));
        properties.keySet().removeIf(name -> !name.startsWith(prefix));
        return properties;
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
