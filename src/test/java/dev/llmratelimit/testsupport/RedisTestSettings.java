package dev.llmratelimit.testsupport;

import dev.llmratelimit.store.redis.RedisStoreSettings;

import java.util.Map;

/**
 * Store settings for exactness tests: timeouts generous enough that a loaded CI machine cannot turn
 * a slow answer into fail-open (which would admit requests the test counts as refused).
 */
public final class RedisTestSettings {

    private RedisTestSettings() {
    }

    public static RedisStoreSettings forAddress(String address) {
        return RedisStoreSettings.parse(Map.of(
                RedisStoreSettings.PREFIX + "address", address,
                RedisStoreSettings.PREFIX + "timeout", "5s",
                RedisStoreSettings.PREFIX + "connect-timeout", "5s"));
    }
}
