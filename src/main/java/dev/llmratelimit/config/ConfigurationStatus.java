package dev.llmratelimit.config;

import java.time.Instant;

/**
 * What the running policy was loaded from and when, for the log, the status page and metrics.
 *
 * @param origin        what the running configuration was read from
 * @param loadedAt      when the running configuration was applied (start-up or the last reload that changed it)
 * @param lastCheckedAt when the configuration was last read, whatever came of it
 * @param lastError     why the last reading was refused (the running policy stayed), or {@code null} when it was valid
 */
public record ConfigurationStatus(String origin, Instant loadedAt, Instant lastCheckedAt, String lastError) {

    static ConfigurationStatus loaded(String origin, Instant at) {
        return new ConfigurationStatus(origin, at, at, null);
    }

    ConfigurationStatus checked(Instant at) {
        return new ConfigurationStatus(origin, loadedAt, at, null);
    }

    ConfigurationStatus refused(Instant at, String error) {
        return new ConfigurationStatus(origin, loadedAt, at, error);
    }
}
