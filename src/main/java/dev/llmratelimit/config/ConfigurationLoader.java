package dev.llmratelimit.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Where a runtime's properties come from, read again at every reload: a base (MicroProfile Config,
 * filter init-params, a map), with the file {@value ConfigFiles#PROPERTY} names read beneath it, so
 * the base's own properties win over the file's.
 */
public final class ConfigurationLoader {

    private final Supplier<Source> base;

    private ConfigurationLoader(Supplier<Source> base) {
        this.base = base;
    }

    /** @param origin names the base in logs and on the status page, e.g. {@code MicroProfile Config} */
    public static ConfigurationLoader of(String origin, Supplier<Map<String, String>> base) {
        return new ConfigurationLoader(() -> new Source(origin, base.get()));
    }

    /** A base that says, at each reading, where it found its properties. */
    public static ConfigurationLoader reading(Supplier<Source> base) {
        return new ConfigurationLoader(base);
    }

    /** Properties fixed in code; only the file they may name can change. */
    public static ConfigurationLoader fixed(Map<String, String> properties) {
        Map<String, String> copy = Map.copyOf(properties);
        return of("properties given in code", () -> copy);
    }

    /** @throws dev.llmratelimit.policy.PolicyException when the named file cannot be read or is invalid */
    public LoadedConfiguration load() {
        Source source = base.get();
        String origin = source.origin();
        Map<String, String> properties = new HashMap<>(source.properties());
        Optional<Path> file = ConfigFiles.location(properties);
        if (file.isEmpty()) {
            return new LoadedConfiguration(properties, origin, List.of(), KnownProperties.unknown(properties));
        }
        ConfigFile read = ConfigFiles.read(file.get());
        Map<String, String> merged = new HashMap<>(read.properties());
        merged.putAll(properties);
        List<String> warnings = new ArrayList<>(read.warnings());
        warnings.addAll(KnownProperties.unknown(merged));
        return new LoadedConfiguration(merged, origin + " over " + file.get(), read.notes(), warnings);
    }

    /** Properties as one base read them, and where it looked, for logs and the status page. */
    public record Source(String origin, Map<String, String> properties) {
    }

    /**
     * @param origin what was read, e.g. {@code MicroProfile Config over /etc/litellm/config.yaml}
     * @param notes    what the file holds that is not used, for the log
     * @param warnings names that are read by nothing but look like a name that is (a typo), each
     *                 naming the closest known one
     */
    public record LoadedConfiguration(Map<String, String> properties, String origin, List<String> notes,
                                      List<String> warnings) {

        public LoadedConfiguration {
            properties = Map.copyOf(properties);
            notes = List.copyOf(notes);
            warnings = List.copyOf(warnings);
        }
    }
}
