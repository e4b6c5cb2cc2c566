package dev.llmratelimit.observe;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where the running configuration came from and when it was loaded, for the status page. Whatever
 * reloads the configuration reports each attempt through {@link #reloaded} (applied or rejected).
 *
 * @param origin      a description of the source (a file, MicroProfile Config, ...)
 * @param fingerprint the first 12 hex digits of the SHA-256 of the sorted {@code llm.ratelimit.*}
 *                    properties: instances that show the same one run the same configuration
 * @param lastReload  the last reload attempt, or {@code null} when none was made
 */
public record ConfigurationStatus(String origin, String fingerprint, Instant loadedAt, Reload lastReload) {

    /**
     * @param applied whether the new configuration is running; {@code false}: it did not validate and
     *                the previous one stayed
     * @param message what was wrong with a rejected configuration, else {@code null}
     */
    public record Reload(Instant at, boolean applied, String message) {
    }

    public static ConfigurationStatus loaded(String origin, Map<String, String> properties, Instant at) {
        return new ConfigurationStatus(origin, fingerprint(properties), at, null);
    }

    /** The same configuration status after a reload attempt. */
    public ConfigurationStatus reloaded(Reload reload) {
        return new ConfigurationStatus(origin, fingerprint, loadedAt, reload);
    }

    static String fingerprint(Map<String, String> properties) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            new TreeMap<>(properties).forEach((name, value) -> {
                if (name.startsWith("llm.ratelimit.")) {
                    digest.update((name + '=' + value + '\n').getBytes(StandardCharsets.UTF_8));
                }
            });
            return HexFormat.of().formatHex(digest.digest(), 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }
}
