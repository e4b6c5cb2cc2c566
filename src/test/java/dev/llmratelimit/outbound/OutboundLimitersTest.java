package dev.llmratelimit.outbound;

import dev.llmratelimit.policy.PolicyException;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class OutboundLimitersTest {

    @Test
    void theSpecsPropertiesThroughMicroProfileConfig() {
        Config config = new SmallRyeConfigBuilder().withSources(new PropertiesConfigSource(Map.of(
                "llm.ratelimit.outbound.openai.base-url", "https://api.openai.com/v1/",
                "llm.ratelimit.outbound.openai.rpm", "500",
                "llm.ratelimit.outbound.openai.tpm", "150000",
                "llm.ratelimit.outbound.openai.models.\"gpt-4.1\".tpm", "30000",
                "llm.ratelimit.outbound.openai.models.gpt-4o-mini.rpm", "5000",
                "llm.ratelimit.outbound.openai.headroom", "0.8",
                "llm.ratelimit.outbound.openai.burst", "0.5",
                "llm.ratelimit.outbound.openai.max-wait", "10s",
                "llm.ratelimit.outbound.anthropic.base-url", "https://api.anthropic.com/v1",
                "llm.ratelimit.outbound.anthropic.rpm", "50"), "test", 100)).build();
        try (OutboundLimiter limiter = OutboundLimiters.fromConfig(config)) {
            ProviderSettings openai = limiter.provider("openai");
            assertThat(openai.baseUrl()).isEqualTo("https://api.openai.com/v1");
            assertThat(openai.limits("gpt-4o")).isEqualTo(new BucketLimits(500, 150_000, 0.8, 0.5));
            assertThat(openai.limits("gpt-4.1")).isEqualTo(new BucketLimits(500, 30_000, 0.8, 0.5));
            assertThat(openai.limits("gpt-4o-mini")).isEqualTo(new BucketLimits(5000, 150_000, 0.8, 0.5));
            assertThat(openai.maxWait()).isEqualTo(Duration.ofSeconds(10));
            assertThat(openai.store()).isEqualTo(ProviderSettings.StoreKind.MEMORY);

            ProviderSettings anthropic = limiter.provider("anthropic");
            assertThat(anthropic.limits("claude-sonnet-4-5")).isEqualTo(new BucketLimits(50, 0, 0.9, 1.0));
            assertThat(anthropic.maxWait()).isEqualTo(Duration.ofSeconds(30));
            assertThat(anthropic.expectedOutputTokens()).isEqualTo(256);
            assertThat(anthropic.lease()).isEqualTo(Duration.ofMinutes(10));

            assertThat(limiter.providerFor("https://api.openai.com/v1/chat/completions")).contains(openai);
            assertThat(limiter.providerFor("https://api.openai.com/v10/chat/completions")).isEmpty();
            assertThat(limiter.providerFor("https://api.anthropic.com/v1/messages")).contains(anthropic);
            assertThat(limiter.providerFor("https://example.com/v1/chat/completions")).isEmpty();
        }
    }

    @Test
    void inputAndOutputTokenLimitsPerProviderAndPerModel() {
        try (OutboundLimiter limiter = OutboundLimiters.fromProperties(Map.of(
                "llm.ratelimit.outbound.anthropic.rpm", "50",
                "llm.ratelimit.outbound.anthropic.itpm", "30000",
                "llm.ratelimit.outbound.anthropic.otpm", "8000",
                "llm.ratelimit.outbound.anthropic.models.claude-haiku-4-5.itpm", "50000",
                "llm.ratelimit.outbound.anthropic.models.\"claude-opus-4.1\".otpm", "4000",
                "llm.ratelimit.outbound.anthropic.models.claude-opus-4.1.tpm", "20000"))) {
            ProviderSettings anthropic = limiter.provider("anthropic");
            assertThat(anthropic.limits("claude-sonnet-4-5")).isEqualTo(new BucketLimits(50, 0, 30_000, 8_000, 0.9, 1.0));
            assertThat(anthropic.limits("claude-haiku-4-5")).isEqualTo(new BucketLimits(50, 0, 50_000, 8_000, 0.9, 1.0));
            assertThat(anthropic.limits("claude-opus-4.1")).isEqualTo(new BucketLimits(50, 20_000, 30_000, 4_000, 0.9, 1.0));
        }
        assertRefused("llm.ratelimit.outbound.anthropic.otpm", "-1");
        assertRefused("llm.ratelimit.outbound.anthropic.models.claude.rpd", "100");
    }

    @Test
    void invalidValuesFailNamingTheProperty() {
        assertRefused("llm.ratelimit.outbound.openai.headroom", "1.5");
        assertRefused("llm.ratelimit.outbound.openai.headroom", "0");
        assertRefused("llm.ratelimit.outbound.openai.burst", "-1");
        assertRefused("llm.ratelimit.outbound.openai.rpm", "-5");
        assertRefused("llm.ratelimit.outbound.openai.tpm", "many");
        assertRefused("llm.ratelimit.outbound.openai.max-wait", "soon");
        assertRefused("llm.ratelimit.outbound.openai.store", "disk");
        assertRefused("llm.ratelimit.outbound.openai.base-url", "ftp://x");
        assertRefused("llm.ratelimit.outbound.openai.models.gpt-4o.rps", "5");
        assertRefused("llm.ratelimit.outbound.openai.colour", "blue");
        assertRefused("llm.ratelimit.outbound.openai", "x");
    }

    private static void assertRefused(String property, String value) {
        assertThatThrownBy(() -> OutboundLimiters.fromProperties(Map.of(property, value)))
                .as(property + "=" + value)
                .isInstanceOf(PolicyException.class).hasMessageContaining(property);
    }
}
