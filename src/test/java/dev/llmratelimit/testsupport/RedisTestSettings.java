package dev.llmratelimit.testsupport;

import dev.llmratelimit.store.redis.RedisStoreSettings;

import java.util.HashMap;
import java.util.Map;

/**
 * Store settings for exactness tests: timeouts generous enough that a loaded CI machine cannot turn
 * a slow answer into fail-open (which would admit requests the test counts as refused).
 */
public final class RedisTestSettings {

    private RedisTestSettings() {
    }

    public static RedisStoreSettings forAddress(String address) {
        return RedisStoreSettings.parse(properties(address));
    }

    /** The same as {@code llm.ratelimit.redis.*} properties, to add others to. */
    public static Map<String, String> properties(String address) {
        Map<String, String> properties = new HashMap<>();
        properties.put(RedisStoreSettings.PREFIX + "address", address);
        properties.put(RedisStoreSettings.PREFIX + "timeout", "5s");
        properties.put(RedisStoreSettings.PREFIX + "connect-timeout", "5s");
        return properties;
    }
}
