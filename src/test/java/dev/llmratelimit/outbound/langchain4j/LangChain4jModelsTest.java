package dev.llmratelimit.outbound.langchain4j;

import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.exception.RateLimitException;
import dev.langchain4j.model.anthropic.AnthropicChatModel;
import dev.langchain4j.model.anthropic.AnthropicStreamingChatModel;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiEmbeddingModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import dev.llmratelimit.outbound.BucketKey;
import dev.llmratelimit.outbound.Buckets;
import dev.llmratelimit.outbound.FakeProvider;
import dev.llmratelimit.outbound.OutboundLimitException;
import dev.llmratelimit.outbound.OutboundLimiter;
import dev.llmratelimit.outbound.ProviderSettings;
import dev.llmratelimit.outbound.memory.MemoryOutboundStore;
import dev.llmratelimit.testsupport.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The real LangChain4j models (OpenAI chat, streaming chat and embeddings; Anthropic chat and streaming
 * chat) through the limiter's HTTP client builder against a local provider, on a clock that stands still:
 * what each call leaves in the token bucket is exactly its usage.
 */
class LangChain4jModelsTest {

    private static final String GPT = "gpt-4o";
    private static final String CLAUDE = "claude-sonnet-4-5";

    private final MutableClock clock = new MutableClock();
    private final MemoryOutboundStore store = new MemoryOutboundStore(clock);
    private FakeProvider provider;
    private OutboundLimiter limiter;

    private void start() throws Exception {
        provider = new FakeProvider(1_000_000, 1_000_000, 1.0);
        provider.resetsAgainst(clock);
        limiter = OutboundLimiter.builder().clock(clock).store(ProviderSettings.StoreKind.MEMORY, store)
                .provider("fake", p -> p.baseUrl(provider.baseUrl()).rpm(1000).tpm(1000).headroom(1.0)
                        .maxWait(Duration.ZERO))
                .build();
    }

    @AfterEach
    void stop() {
        if (provider != null) {
            provider.close();
        }
    }

    private long tokensLeft(String model) {
        return Buckets.tokensLeft(store, new BucketKey("fake", model), limiter.provider("fake").limits(model));
    }

    private ChatModel openAi() {
        return OpenAiChatModel.builder().baseUrl(provider.baseUrl()).apiKey("sk-test").modelName(GPT).maxTokens(40)
                .maxRetries(0).httpClientBuilder(LimitedLangChain4jHttpClientBuilder.of(limiter)).build();
    }

    private ChatModel anthropic() {
        return AnthropicChatModel.builder().baseUrl(provider.baseUrl()).apiKey("sk-ant-test").modelName(CLAUDE)
                .maxTokens(40).maxRetries(0).httpClientBuilder(LimitedLangChain4jHttpClientBuilder.of(limiter)).build();
    }

    static ChatResponse streamed(StreamingChatModel model, String prompt) throws Exception {
        CompletableFuture<ChatResponse> done = new CompletableFuture<>();
        model.chat(prompt, new StreamingChatResponseHandler() {
            @Override
            public void onCompleteResponse(ChatResponse response) {
                done.complete(response);
            }

            @Override
            public void onError(Throwable error) {
                done.completeExceptionally(error);
            }
        });
        return done.get(30, TimeUnit.SECONDS);
    }

    @Test
    void anOpenAiChatSettlesToItsUsage() throws Exception {
        start();
        ChatResponse response = openAi().chat(dev.langchain4j.model.chat.request.ChatRequest.builder()
                .messages(dev.langchain4j.data.message.UserMessage.from("hi")).build());
        assertThat(response.aiMessage().text()).isEqualTo("hello");
        assertThat(response.tokenUsage().totalTokenCount()).isEqualTo(28);
        // 8 prompt + 20 completion tokens; the rest of the estimate (the tokenizer's prompt + 40) went back
        assertThat(tokensLeft(GPT)).isEqualTo(1000 - 28);
        assertThat(provider.bodies()).singleElement().asString().containsIgnoringWhitespaces("\"max_tokens\":40");
    }

    @Test
    void anOpenAiStreamSettlesToTheUsageItCarried() throws Exception {
        start();
        StreamingChatModel model = OpenAiStreamingChatModel.builder().baseUrl(provider.baseUrl()).apiKey("sk-test")
                .modelName(GPT).maxTokens(40).httpClientBuilder(LimitedLangChain4jHttpClientBuilder.of(limiter)).build();
        ChatResponse response = streamed(model, "hi");
        assertThat(response.aiMessage().text()).isEqualTo("word word word ");
        assertThat(provider.bodies()).singleElement().asString().containsIgnoringWhitespaces("\"include_usage\":true");
        assertThat(response.tokenUsage().totalTokenCount()).isEqualTo(28);
        assertThat(tokensLeft(GPT)).isEqualTo(1000 - 28);
    }

    @Test
    void anthropicCallsSettleToTheirUsageJsonAndStreamed() throws Exception {
        start();
        assertThat(anthropic().chat("hi")).isEqualTo("hello");
        assertThat(tokensLeft(CLAUDE)).isEqualTo(1000 - 28);

        StreamingChatModel streaming = AnthropicStreamingChatModel.builder().baseUrl(provider.baseUrl())
                .apiKey("sk-ant-test").modelName(CLAUDE).maxTokens(40)
                .httpClientBuilder(LimitedLangChain4jHttpClientBuilder.of(limiter)).build();
        ChatResponse response = streamed(streaming, "hi");
        assertThat(response.aiMessage().text()).isEqualTo("word word word ");
        // input_tokens from message_start, output_tokens from message_delta
        assertThat(tokensLeft(CLAUDE)).isEqualTo(1000 - 28 - 28);
    }

    @Test
    void embeddingsSettleToTheirPromptTokens() throws Exception {
        start();
        EmbeddingModel model = OpenAiEmbeddingModel.builder().baseUrl(provider.baseUrl()).apiKey("sk-test")
                .modelName("text-embedding-3-small").maxRetries(0)
                .httpClientBuilder(LimitedLangChain4jHttpClientBuilder.of(limiter)).build();
        var response = model.embedAll(List.of(TextSegment.from("one"), TextSegment.from("two"), TextSegment.from("three")));
        assertThat(response.content()).hasSize(3);
        assertThat(tokensLeft("text-embedding-3-small")).isEqualTo(1000 - 3L * FakeProvider.EMBEDDING_TOKENS_PER_INPUT);
    }

    @Test
    void anOpenAi429PausesTheModelUntilItsRetryAfter() throws Exception {
        start();
        ChatModel model = openAi();
        provider.script("429");
        assertThatThrownBy(() -> model.chat("hi")).isInstanceOf(RateLimitException.class);
        // retry-after-ms 2000: nothing starts before then, and max-wait 0 refuses at once
        assertThatThrownBy(() -> model.chat("hi")).isInstanceOfSatisfying(OutboundLimitException.class,
                e -> assertThat(e.roomIn()).isEqualTo(Duration.ofMillis(FakeProvider.SCRIPTED_RETRY_MILLIS)));
        assertThat(provider.bodies()).hasSize(1);
        clock.advance(Duration.ofMillis(FakeProvider.SCRIPTED_RETRY_MILLIS));
        assertThat(model.chat("hi")).isEqualTo("hello");
    }

    @Test
    void anAnthropic429PausesTheModelUntilItsRetryAfter() throws Exception {
        start();
        ChatModel model = anthropic();
        provider.script("429");
        assertThatThrownBy(() -> model.chat("hi")).isInstanceOf(RateLimitException.class);
        assertThatThrownBy(() -> model.chat("hi")).isInstanceOfSatisfying(OutboundLimitException.class,
                e -> assertThat(e.roomIn()).isEqualTo(Duration.ofMillis(FakeProvider.SCRIPTED_RETRY_MILLIS)));
        clock.advance(Duration.ofMillis(FakeProvider.SCRIPTED_RETRY_MILLIS));
        assertThat(model.chat("hi")).isEqualTo("hello");
    }

    @Test
    void aCallThatCouldNeverFitIsRefusedBeforeAnythingIsSent() throws Exception {
        start();
        ChatModel model = OpenAiChatModel.builder().baseUrl(provider.baseUrl()).apiKey("sk-test").modelName(GPT)
                .maxTokens(5000).maxRetries(0).httpClientBuilder(LimitedLangChain4jHttpClientBuilder.of(limiter)).build();
        assertThatThrownBy(() -> model.chat("hi")).isInstanceOfSatisfying(OutboundLimitException.class,
                e -> assertThat(e.reason()).isEqualTo(OutboundLimitException.Reason.NEVER_FITS));
        assertThat(provider.bodies()).isEmpty();
        assertThat(tokensLeft(GPT)).isEqualTo(1000);
    }
}
