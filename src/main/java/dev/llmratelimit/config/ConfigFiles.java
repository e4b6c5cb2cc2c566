package dev.llmratelimit.config;

import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.policy.PolicyParser;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * Reads a configuration file without MicroProfile Config: a LiteLLM {@code config.yaml}
 * ({@code .yaml}, {@code .yml}) or a {@code .properties} file of {@code llm.ratelimit.*} keys.
 */
public final class ConfigFiles {

    /** Names the file the runtime reads beneath its other properties, at start and at every reload. */
    public static final String PROPERTY = PolicyParser.PREFIX + "config-file";
    /** The same pointer as an environment variable, for containers that pass no system properties. */
    public static final String ENVIRONMENT_VARIABLE = "LLM_RATELIMIT_CONFIG_FILE";

    /** Far above any real configuration; a bigger file is refused before it is parsed. */
    static final long MAX_SIZE = 4L * 1024 * 1024;

    private ConfigFiles() {
    }

    /** The file {@value #PROPERTY} names: in the properties, else as a system property, else {@value #ENVIRONMENT_VARIABLE}. */
    public static Optional<Path> location(Map<String, String> properties) {
        String text = properties.get(PROPERTY);
        if (text == null || text.isBlank()) {
            text = System.getProperty(PROPERTY);
        }
        if (text == null || text.isBlank()) {
            text = System.getenv(ENVIRONMENT_VARIABLE);
        }
        return text == null || text.isBlank() ? Optional.empty() : Optional.of(Path.of(text.trim()));
    }

    public static boolean isYaml(Path file) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        return name.endsWith(".yaml") || name.endsWith(".yml");
    }

    /** @throws PolicyException naming the file or the key when it cannot be read or is invalid */
    public static ConfigFile read(Path file) {
        String text = text(file);
        if (text.isBlank()) {
            // most often a file caught while an editor rewrites it in place: applying it would lift every limit
            throw new PolicyException(PROPERTY, file.toString(), "the file is empty; a configuration file holds"
                    + " at least one setting (write it whole, a new file renamed over the old one, so that a reload"
                    + " never reads it half-written)");
        }
        if (isYaml(file)) {
            try {
                return LiteLlmConfig.parse(text, file.toString(), System::getenv);
            } catch (NoClassDefFoundError e) {
                // the optional YAML module is not there: LiteLlmConfig cannot link
                throw new PolicyException(PROPERTY, file.toString(), "reading YAML needs"
                        + " com.fasterxml.jackson.dataformat:jackson-dataformat-yaml on the class path");
            }
        }
        Properties loaded = new Properties();
        try {
            loaded.load(new StringReader(text));
        } catch (IOException | IllegalArgumentException e) {
            throw new PolicyException(PROPERTY, file.toString(), "not a valid properties file: " + e.getMessage());
        }
        Map<String, String> properties = new HashMap<>();
        loaded.stringPropertyNames().forEach(name -> properties.put(name, loaded.getProperty(name)));
        return new ConfigFile(properties, List.of());
    }

    private static String text(Path file) {
        try {
            if (Files.size(file) > MAX_SIZE) {
                throw new PolicyException(PROPERTY, file.toString(), "larger than 4 MiB: not a configuration file");
            }
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new PolicyException(PROPERTY, file.toString(), "cannot be read (" + e + ")");
        }
    }
}
