package dev.llmratelimit.outbound.springai;

import dev.llmratelimit.outbound.BucketKey;
import dev.llmratelimit.outbound.Buckets;
import dev.llmratelimit.outbound.FakeProvider;
import dev.llmratelimit.outbound.OutboundLimitException;
import dev.llmratelimit.outbound.OutboundLimiter;
import dev.llmratelimit.outbound.ProviderSettings;
import dev.llmratelimit.outbound.memory.MemoryOutboundStore;
import dev.llmratelimit.testsupport.MutableClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.anthropic.AnthropicChatModel;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiEmbeddingModel;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The real Spring AI models (OpenAI chat, streamed chat and embeddings; Anthropic chat and streamed chat)
 * of a Spring Boot application against local providers, limited through the auto-configured RestClient
 * interceptor and WebClient filter, on the application's own limiter bean whose clock stands still: what
 * each call leaves in the token bucket is exactly its usage.
 */
class SpringAiModelsTest {

    private static final MutableClock CLOCK = new MutableClock();
    private static final MemoryOutboundStore STORE = new MemoryOutboundStore(CLOCK);
    private static FakeProvider openAi;
    private static FakeProvider anthropic;
    private static ConfigurableApplicationContext application;

    /** The application's own limiter replaces the one made from properties. */
    @Configuration(proxyBeanMethods = false)
    static class StandingClockLimiter {
        @Bean
        OutboundLimiter testLimiter() {
            return OutboundLimiter.builder().clock(CLOCK).store(ProviderSettings.StoreKind.MEMORY, STORE)
                    .provider("openai", p -> p.baseUrl(openAi.baseUrl()).rpm(1000).tpm(1000).headroom(1.0).maxWait(Duration.ZERO))
                    .provider("anthropic", p -> p.baseUrl(anthropic.baseUrl()).rpm(1000).tpm(1000).headroom(1.0).maxWait(Duration.ZERO))
                    .build();
        }
    }

    @BeforeAll
    static void start() throws Exception {
        openAi = new FakeProvider(1_000_000, 1_000_000, 1.0);
        anthropic = new FakeProvider(1_000_000, 1_000_000, 1.0);
        anthropic.resetsAgainst(CLOCK);
        // no llm.ratelimit.outbound.* property: the application's own limiter turns the hooks on
        application = SpringAiApplication.start(openAi, anthropic, Map.of(), StandingClockLimiter.class);
    }

    @AfterAll
    static void stop() {
        application.close();
        openAi.close();
        anthropic.close();
    }

    @BeforeEach
    void fullBuckets() {
        CLOCK.advance(Duration.ofMinutes(10));
    }

    private static long tokensLeft(String provider, String model) {
        OutboundLimiter limiter = application.getBean(OutboundLimiter.class);
        return Buckets.tokensLeft(STORE, new BucketKey(provider, model), limiter.provider(provider).limits(model));
    }

    private static String streamed(ChatModel model) {
        List<ChatResponse> responses = model.stream(new Prompt("hi")).collectList().block(Duration.ofSeconds(30));
        return Objects.requireNonNull(responses).stream()
                .filter(r -> r.getResult() != null && r.getResult().getOutput().getText() != null)
                .map(r -> r.getResult().getOutput().getText()).collect(Collectors.joining());
    }

    @Test
    void theAutoConfigurationLimitsWithTheApplicationsLimiter() {
        assertThat(application.getBeansOfType(OutboundLimiter.class)).containsOnlyKeys("testLimiter");
    }

    @Test
    void anOpenAiChatSettlesToItsUsage() {
        int before = openAi.bodies().size();
        assertThat(application.getBean(OpenAiChatModel.class).call("hi")).isEqualTo("hello");
        assertThat(openAi.bodies().get(before)).containsIgnoringWhitespaces("\"max_tokens\":40");
        assertThat(tokensLeft("openai", "gpt-4o")).isEqualTo(1000 - 28);
    }

    @Test
    void anOpenAiStreamAsksForUsageSettlesToItAndSpringAiSeesTheStreamItAskedFor() {
        int before = openAi.bodies().size();
        assertThat(streamed(application.getBean(OpenAiChatModel.class))).isEqualTo("word word word ");
        assertThat(openAi.bodies().get(before)).containsIgnoringWhitespaces("\"include_usage\":true");
        assertThat(tokensLeft("openai", "gpt-4o")).isEqualTo(1000 - 28);
    }

    @Test
    void embeddingsSettleToTheirPromptTokens() {
        var response = application.getBean(OpenAiEmbeddingModel.class).embed(List.of("one", "two", "three"));
        assertThat(response).hasSize(3);
        assertThat(tokensLeft("openai", "text-embedding-3-small")).isEqualTo(1000 - 3L * FakeProvider.EMBEDDING_TOKENS_PER_INPUT);
    }

    @Test
    void anthropicCallsSettleToTheirUsageJsonAndStreamed() {
        AnthropicChatModel model = application.getBean(AnthropicChatModel.class);
        assertThat(model.call("hi")).isEqualTo("hello");
        assertThat(tokensLeft("anthropic", "claude-sonnet-4-5")).isEqualTo(1000 - 28);
        assertThat(streamed(model)).isEqualTo("word word word ");
        assertThat(tokensLeft("anthropic", "claude-sonnet-4-5")).isEqualTo(1000 - 28 - 28);
    }

    @Test
    void aProvider429PausesTheModelUntilItsRetryAfter() {
        for (ChatModel model : List.of(application.getBean(OpenAiChatModel.class), application.getBean(AnthropicChatModel.class))) {
            FakeProvider provider = model instanceof OpenAiChatModel ? openAi : anthropic;
            provider.script("429");
            assertThatThrownBy(() -> model.call("hi")).hasMessageContaining("429");
            // nothing starts before the retry-after (2 s), and max-wait 0 refuses at once
            assertThatThrownBy(() -> model.call("hi")).isInstanceOfSatisfying(OutboundLimitException.class,
                    e -> assertThat(e.roomIn()).isEqualTo(Duration.ofMillis(FakeProvider.SCRIPTED_RETRY_MILLIS)));
            CLOCK.advance(Duration.ofMillis(FakeProvider.SCRIPTED_RETRY_MILLIS));
            assertThat(model.call("hi")).isEqualTo("hello");
        }
    }

    @Test
    void aPausedStreamIsRefusedBeforeAnythingIsSent() {
        OpenAiChatModel model = application.getBean(OpenAiChatModel.class);
        openAi.script("429");
        assertThatThrownBy(() -> model.call("hi")).hasMessageContaining("429");
        int before = openAi.bodies().size();
        assertThatThrownBy(() -> streamed(model)).hasRootCauseInstanceOf(OutboundLimitException.class);
        assertThat(openAi.bodies()).hasSize(before);
    }
}
