package dev.llmratelimit.store.redis;

import dev.llmratelimit.policy.PolicyException;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.io.IOException;

/** Creates the {@link RedissonClient} that {@link RedisStoreSettings} describe. */
public final class RedissonClientFactory {

    private RedissonClientFactory() {
    }

    public static RedissonClient create(RedisStoreSettings settings) {
        return Redisson.create(config(settings));
    }

    /**
     * A YAML file is taken as written. Otherwise one server; lazy initialisation lets the
     * application start while Redis is down ({@code on-store-failure} then applies per request).
     */
    static Config config(RedisStoreSettings settings) {
        if (settings.configFile() != null) {
            try {
                return Config.fromYAML(settings.configFile().toFile());
            } catch (IOException e) {
                throw new PolicyException(RedisStoreSettings.PREFIX + "config-file", settings.configFile().toString(),
                        "not a Redisson YAML configuration: " + e.getMessage());
            }
        }
        Config config = new Config();
        config.setLazyInitialization(true);
        config.useSingleServer()
                .setAddress(settings.address())
                .setUsername(settings.username())
                .setPassword(settings.password())
                .setDatabase(settings.database())
                .setTimeout((int) settings.timeout().toMillis())
                .setConnectTimeout((int) settings.connectTimeout().toMillis())
                .setRetryAttempts(settings.retryAttempts());
        return config;
    }
}
