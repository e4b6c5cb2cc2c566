package dev.llmratelimit.config;

import dev.llmratelimit.policy.Fairness;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.store.redis.RedisStoreSettings;
import org.junit.jupiter.api.Test;
import org.redisson.config.Config;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/** The samples in config/ are valid: a copied sample must start. */
class SampleConfigurationTest {

    private static Map<String, String> load(String file) throws IOException {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(Path.of("config", file))) {
            properties.load(reader);
        }
        Map<String, String> map = new HashMap<>();
        properties.stringPropertyNames().forEach(name -> map.put(name, properties.getProperty(name)));
        return map;
    }

    @Test
    void theReferenceConfigurationParses() throws IOException {
        Map<String, String> properties = load("reference.properties");
        RateLimitPolicy policy = PolicyParser.parse(properties);
        FilterSettings settings = FilterSettings.parse(properties);

        assertThat(policy.models().keySet()).containsExactlyInAnyOrder("gpt-4o", "gpt-4.1", "openai:gpt-4o-mini");
        assertThat(policy.model("gpt-4o").shareOf("prod")).isEqualTo(0.7);
        assertThat(policy.model("gpt-4o").saturationThreshold()).isEqualTo(0.8);
        assertThat(policy.model("gpt-4o").fairness()).isEqualTo(Fairness.WORK_CONSERVING);
        assertThat(policy.model("gpt-4.1").fairness()).isEqualTo(Fairness.SATURATION);
        assertThat(settings.maxBodySize()).isEqualTo(4 * 1024 * 1024);
        assertThat(settings.paths()).containsExactlyInAnyOrder("/v1/chat/completions", "/chat/completions");
        try (RateLimitRuntime runtime = RateLimitRuntime.create(properties, null)) {
            assertThat(runtime.callerResolver().resolve(() -> "alice").teamPriority()).isEqualTo("prod");
            assertThat(runtime.callerResolver().resolve(() -> "bob@example.com").ownPriority()).isEqualTo("dev");
        }
    }

    @Test
    void theDemoConfigurationParses() throws IOException {
        RateLimitPolicy policy = PolicyParser.parse(load("demo.properties"));
        assertThat(policy.model("gpt-4o-mini").tpm()).isEqualTo(60);
    }

    @Test
    void theRedissonSamplesParse() throws IOException {
        Config cluster = Config.fromYAML(Path.of("config", "redisson-cluster.yaml").toFile());
        Config sentinel = Config.fromYAML(Path.of("config", "redisson-sentinel.yaml").toFile());
        assertThat(cluster.isClusterConfig()).isTrue();
        assertThat(sentinel.isSentinelConfig()).isTrue();
        RedisStoreSettings redis = RedisStoreSettings.parse(load("redis.properties"));
        assertThat(redis.address()).isEqualTo("redis://127.0.0.1:6379");
        assertThat(redis.timeout()).hasSeconds(1);
    }
}
