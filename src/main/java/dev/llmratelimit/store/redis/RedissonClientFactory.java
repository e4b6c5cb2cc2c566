package dev.llmratelimit.store.redis;

import dev.llmratelimit.policy.PolicyException;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.ConstantDelay;

import java.io.IOException;
import java.time.Duration;

/** Creates the {@link RedissonClient} that {@link RedisStoreSettings} describe. */
public final class RedissonClientFactory {

    private RedissonClientFactory() {
    }

    public static RedissonClient create(RedisStoreSettings settings) {
        return Redisson.create(config(settings));
    }

    /** How often a lost connection is tried again: a restarted Redis is used within this much of answering. */
    static final Duration RECONNECT_EVERY = Duration.ofMillis(50);
    /**
     * Connections kept open when idle. Redisson's 24 take 1 to 2 s to come back after a restart
     * (measured: 1.0-2.2 s with 24, 13-200 ms with 1 to 4); more are opened under load.
     */
    static final int MINIMUM_IDLE_CONNECTIONS = 4;

    /**
     * A YAML file is taken as written. Otherwise one server; lazy initialisation lets the
     * application start while Redis is down ({@code on-store-failure} then applies per request).
     * A lost connection is tried again every {@link #RECONNECT_EVERY}, not after Redisson's growing
     * delays (up to 10 s), and few idle connections are kept, so limiting resumes as soon as Redis
     * answers again.
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
                .setRetryAttempts(settings.retryAttempts())
                .setReconnectionDelay(new ConstantDelay(RECONNECT_EVERY))
                .setConnectionMinimumIdleSize(MINIMUM_IDLE_CONNECTIONS);
        return config;
    }
}
