package dev.llmratelimit.config;

import org.eclipse.microprofile.config.spi.ConfigSource;

import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

/**
 * The file {@value ConfigFiles#PROPERTY} names (a system property, or the environment variable
 * {@value ConfigFiles#ENVIRONMENT_VARIABLE}), a LiteLLM {@code config.yaml} or a properties file, as
 * a MicroProfile Config source, registered through the ServiceLoader. Its ordinal ({@value #ORDINAL})
 * lies below {@code microprofile-config.properties}, so the application's own properties win.
 *
 * <p>The application sees the file's values through MicroProfile Config as read at start-up. The
 * filter itself reads the file directly (at start and at every reload), so it skips this source's
 * values ({@link #isThisSource(String)}) rather than take a stale copy.
 */
public final class ConfigFileSource implements ConfigSource {

    public static final int ORDINAL = 50;
    private static final String NAME_PREFIX = "llm-ratelimit config file ";
    private static final System.Logger LOG = System.getLogger(ConfigFileSource.class.getName());

    private final Path file;
    private volatile Map<String, String> properties;

    /** The ServiceLoader's constructor: the file the system property or environment variable names, if any. */
    public ConfigFileSource() {
        this(ConfigFiles.location(Map.of()).orElse(null));
    }

    /** @param file the configuration file, or {@code null} for an empty source */
    public ConfigFileSource(Path file) {
        this.file = file;
    }

    /** Whether a MicroProfile {@code ConfigValue} with this source name came from a {@link ConfigFileSource}. */
    public static boolean isThisSource(String sourceName) {
        return sourceName != null && sourceName.startsWith(NAME_PREFIX);
    }

    /**
     * The file's properties, read once. An unreadable or invalid file leaves this source empty (with
     * a warning) rather than break the application's whole configuration; the filter's own start-up
     * reports the error and refuses to start.
     */
    @Override
    public Map<String, String> getProperties() {
        Map<String, String> read = properties;
        if (read == null) {
            read = file == null ? Map.of() : readOrEmpty();
            properties = read;
        }
        return read;
    }

    private Map<String, String> readOrEmpty() {
        try {
            return ConfigFiles.read(file).properties();
        } catch (RuntimeException | LinkageError e) {
            LOG.log(Level.WARNING, "MicroProfile Config does not show " + file + ": " + e.getMessage());
            return Map.of();
        }
    }

    @Override
    public Set<String> getPropertyNames() {
        return getProperties().keySet();
    }

    @Override
    public String getValue(String propertyName) {
        return getProperties().get(propertyName);
    }

    @Override
    public String getName() {
        return NAME_PREFIX + (file == null ? "(none)" : file);
    }

    @Override
    public int getOrdinal() {
        return ORDINAL;
    }
}
