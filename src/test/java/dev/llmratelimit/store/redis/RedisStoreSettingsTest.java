package dev.llmratelimit.store.redis;

import dev.llmratelimit.policy.PolicyException;
import org.junit.jupiter.api.Test;
import org.redisson.config.Config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static dev.llmratelimit.store.redis.RedisStoreSettings.PREFIX;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RedisStoreSettingsTest {

    @Test
    void defaults() {
        assertThat(RedisStoreSettings.parse(Map.of())).isEqualTo(new RedisStoreSettings("redis://127.0.0.1:6379",
                null, null, 0, null, Duration.ofSeconds(1), Duration.ofSeconds(1), 0, "llmrl:"));
    }

    @Test
    void everyPropertyIsRead() {
        RedisStoreSettings settings = RedisStoreSettings.parse(Map.of(
                PREFIX + "address", "rediss://cache.internal:6380", PREFIX + "username", "app",
                PREFIX + "password", "s3cret", PREFIX + "database", "3", PREFIX + "timeout", "100ms",
                PREFIX + "connect-timeout", "PT2S", PREFIX + "retry-attempts", "2", PREFIX + "key-prefix", "rl/"));
        assertThat(settings).isEqualTo(new RedisStoreSettings("rediss://cache.internal:6380", "app", "s3cret", 3,
                null, Duration.ofMillis(100), Duration.ofSeconds(2), 2, "rl/"));
        assertThat(settings.toString()).doesNotContain("s3cret").contains("password=****");

        Config config = RedissonClientFactory.config(settings);
        assertThat(config.useSingleServer().getAddress()).isEqualTo("rediss://cache.internal:6380");
        assertThat(config.useSingleServer().getTimeout()).isEqualTo(100);
        assertThat(config.useSingleServer().getConnectTimeout()).isEqualTo(2000);
        assertThat(config.useSingleServer().getRetryAttempts()).isEqualTo(2);
        assertThat(config.useSingleServer().getDatabase()).isEqualTo(3);
        assertThat(config.useSingleServer().getPassword()).isEqualTo("s3cret");
        assertThat(config.isLazyInitialization()).isTrue();
    }

    @Test
    void aConfigFileWins() throws Exception {
        Path yaml = Files.createTempFile(Path.of("target"), "redisson", ".yaml");
        Files.writeString(yaml, """
                clusterServersConfig:
                  nodeAddresses:
                  - "redis://127.0.0.1:7001"
                  - "redis://127.0.0.1:7002"
                """);
        RedisStoreSettings settings = RedisStoreSettings.parse(Map.of(PREFIX + "config-file", yaml.toString(),
                PREFIX + "address", "redis://elsewhere:6379"));
        Config config = RedissonClientFactory.config(settings);
        assertThat(config.isClusterConfig()).isTrue();
        assertThat(config.useClusterServers().getNodeAddresses())
                .containsExactly("redis://127.0.0.1:7001", "redis://127.0.0.1:7002");
    }

    @Test
    void invalidValuesNameThePropertyAndTheValue() {
        assertThatThrownBy(() -> RedisStoreSettings.parse(Map.of(PREFIX + "address", "tcp://user:secret@cache:6379")))
                .isInstanceOf(PolicyException.class)         // an address may carry a password: never quoted
                .hasMessage("Invalid configuration " + PREFIX + "address (value not shown): expected redis://host:port"
                        + " or rediss://host:port");
        assertInvalid("database", "-1");
        assertInvalid("database", "zero");
        assertInvalid("timeout", "0ms");
        assertInvalid("timeout", "soon");
        assertInvalid("connect-timeout", "-1s");
        assertInvalid("retry-attempts", "many");
        assertInvalid("key-prefix", "rl{x}:");
        assertInvalid("config-file", "/no/such/redisson.yaml");
    }

    private static void assertInvalid(String property, String value) {
        assertThatThrownBy(() -> RedisStoreSettings.parse(Map.of(PREFIX + property, value)))
                .isInstanceOf(PolicyException.class)
                .hasMessageContaining(PREFIX + property + "=" + value);
    }
}
