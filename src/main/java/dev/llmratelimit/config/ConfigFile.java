package dev.llmratelimit.config;

import java.util.List;
import java.util.Map;

/**
 * One configuration file as {@code llm.ratelimit.*} properties.
 *
 * @param notes    what the file holds that is not used (ignored keys), one log line each
 * @param warnings keys that look like a mistyped key that would be read: a warning at start-up, an error in {@code check}
 */
public record ConfigFile(Map<String, String> properties, List<String> notes, List<String> warnings) {

    public ConfigFile {
        properties = Map.copyOf(properties);
        notes = List.copyOf(notes);
        warnings = List.copyOf(warnings);
    }

    public ConfigFile(Map<String, String> properties, List<String> notes) {
        this(properties, notes, List.of());
    }
}
