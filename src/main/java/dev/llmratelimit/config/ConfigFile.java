package dev.llmratelimit.config;

import java.util.List;
import java.util.Map;

/**
 * One configuration file as {@code llm.ratelimit.*} properties.
 *
 * @param notes what the file holds that is not used (ignored keys), one log line each
 */
public record ConfigFile(Map<String, String> properties, List<String> notes) {

    public ConfigFile {
        properties = Map.copyOf(properties);
        notes = List.copyOf(notes);
    }
}
