package dev.llmratelimit.store.redis;

import dev.llmratelimit.policy.Durations;
import dev.llmratelimit.policy.PolicyException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * How to reach Redis, from {@code llm.ratelimit.redis.*} properties.
 *
 * @param address        {@code redis://host:port}, or {@code rediss://} for TLS
 * @param username       ACL user, {@code null} for none
 * @param password       {@code null} for none
 * @param configFile     a Redisson YAML file (sentinel, cluster, TLS details); when set it wins over
 *                       every other connection setting here, {@code null} for none
 * @param timeout        how long one command may take before the store counts as failed
 * @param retryAttempts  Redisson's retries of a failed command; 0 by default, since a retried
 *                       decision whose first attempt did reach Redis would count the request twice
 * @param keyPrefix      put before every key; must not contain braces (they would break the hash tag)
 */
public record RedisStoreSettings(String address, String username, String password, int database,
                                 Path configFile, Duration timeout, Duration connectTimeout,
                                 int retryAttempts, String keyPrefix) {

    public static final String PREFIX = "llm.ratelimit.redis.";

    public static RedisStoreSettings parse(Map<String, String> properties) {
        String address = text(properties, "address", "redis://127.0.0.1:6379");
        if (!address.startsWith("redis://") && !address.startsWith("rediss://")) {
            throw new PolicyException(PREFIX + "address", address, "expected redis://host:port or rediss://host:port");
        }
        String configText = properties.get(PREFIX + "config-file");
        Path configFile = null;
        if (configText != null && !configText.isBlank()) {
            configFile = Path.of(configText.trim());
            if (!Files.isReadable(configFile)) {
                throw new PolicyException(PREFIX + "config-file", configText, "no readable file there");
            }
        }
        String keyPrefix = text(properties, "key-prefix", "llmrl:");
        if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
            throw new PolicyException(PREFIX + "key-prefix", keyPrefix, "braces would break the keys' hash tag");
        }
        return new RedisStoreSettings(address,
                properties.get(PREFIX + "username"),
                properties.get(PREFIX + "password"),
                integer(properties, "database", 0),
                configFile,
                positiveDuration(properties, "timeout", "1s"),
                positiveDuration(properties, "connect-timeout", "1s"),
                integer(properties, "retry-attempts", 0),
                keyPrefix);
    }

    /** Never shows the password. */
    @Override
    public String toString() {
        return "RedisStoreSettings[address=" + address + ", username=" + username
                + ", password=" + (password == null ? "none" : "****") + ", database=" + database
                + ", configFile=" + configFile + ", timeout=" + timeout + ", connectTimeout=" + connectTimeout
                + ", retryAttempts=" + retryAttempts + ", keyPrefix=" + keyPrefix + "]";
    }

    private static String text(Map<String, String> properties, String name, String defaultValue) {
        String value = properties.get(PREFIX + name);
        return value == null ? defaultValue : value.trim();
    }

    private static int integer(Map<String, String> properties, String name, int defaultValue) {
        String value = properties.get(PREFIX + name);
        if (value == null) {
            return defaultValue;
        }
        try {
            int parsed = Integer.parseInt(value.trim());
            if (parsed >= 0) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new PolicyException(PREFIX + name, value, "expected a whole number, 0 or more");
    }

    private static Duration positiveDuration(Map<String, String> properties, String name, String defaultValue) {
        String text = text(properties, name, defaultValue);
        Duration duration = Durations.parse(PREFIX + name, text);
        if (duration.isZero() || duration.isNegative() || duration.toMillis() > Integer.MAX_VALUE) {
            throw new PolicyException(PREFIX + name, text, "expected a duration above zero, such as 250ms or 1s");
        }
        return duration;
    }
}
