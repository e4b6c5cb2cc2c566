package dev.llmratelimit.config;

import java.nio.file.Path;
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

    private final String origin;
    private final Supplier<Map<String, String>> base;

    private ConfigurationLoader(String origin, Supplier<Map<String, String>> base) {
        this.origin = origin;
        this.base = base;
    }

    /** @param origin names the base in logs and on the status page, e.g. {@code MicroProfile Config} */
    public static ConfigurationLoader of(String origin, Supplier<Map<String, String>> base) {
        return new ConfigurationLoader(origin, base);
    }

    /** Properties fixed in code; only the file they may name can change. */
    public static ConfigurationLoader fixed(Map<String, String> properties) {
        Map<String, String> copy = Map.copyOf(properties);
        return new ConfigurationLoader("properties given in code", () -> copy);
    }

    /** @throws dev.llmratelimit.policy.PolicyException when the named file cannot be read or is invalid */
    public LoadedConfiguration load() {
        Map<String, String> properties = new HashMap<>(base.get());
        Optional<Path> file = ConfigFiles.location(properties);
        if (file.isEmpty()) {
            return new LoadedConfiguration(properties, origin, List.of());
        }
        ConfigFile read = ConfigFiles.read(file.get());
        Map<String, String> merged = new HashMap<>(read.properties());
        merged.putAll(properties);
        return new LoadedConfiguration(merged, origin + " over " + file.get(), read.notes());
    }

    /**
     * @param origin what was read, e.g. {@code MicroProfile Config over /etc/litellm/config.yaml}
     * @param notes  what the file holds that is not used, for the log
     */
    public record LoadedConfiguration(Map<String, String> properties, String origin, List<String> notes) {

        public LoadedConfiguration {
            properties = Map.copyOf(properties);
            notes = List.copyOf(notes);
        }
    }
}
