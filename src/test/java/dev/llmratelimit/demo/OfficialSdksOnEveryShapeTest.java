package dev.llmratelimit.demo;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.RateLimitException;
import com.openai.models.completions.Completion;
import com.openai.models.completions.CompletionCreateParams;
import com.openai.models.embeddings.CreateEmbeddingResponse;
import com.openai.models.embeddings.EmbeddingCreateParams;
import com.openai.models.responses.Response;
import com.openai.models.responses.ResponseCreateParams;
import com.openai.models.responses.ResponseStreamEvent;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The official SDKs as real clients of every shape the demo serves through the filter: they parse
 * the mock's answers and streams, the filter charges exactly their usage, and our 429 is their own
 * rate-limit error (OpenAI's for completions, embeddings and responses; Anthropic's for messages).
 */
class OfficialSdksOnEveryShapeTest {

    /**
     * 10 prompt + 20 completion tokens an answer (embeddings: 10); 70 tokens a window, the model-wide
     * limit only: two answers and the probe fill it.
     */
    private static final String[] LIMITS = {"llm.ratelimit.models.shape-model.tpm=70",
        "llm.ratelimit.models.shape-model.saturation-threshold=1.0"};

    private static OpenAIClient openAi(DemoFixture demo) {
        return OpenAIOkHttpClient.builder().apiKey("sk-alice").baseUrl(demo.baseUrl()).maxRetries(0).build();
    }

    /** The tokens left before an embeddings probe, which costs 10 more. */
    private static long remainingTokens(DemoFixture demo) {
        HttpResponse<String> probe = demo.http().post("/v1/embeddings", "sk-alice",
                "{\"model\":\"shape-model\",\"input\":\"probe\"}");
        return Long.parseLong(probe.headers().firstValue("x-ratelimit-remaining-tokens").orElseThrow());
    }

    @Test
    void legacyCompletionsJsonAndStreamThenTheRateLimitException() throws Exception {
        try (DemoFixture demo = new DemoFixture(LIMITS)) {
            OpenAIClient client = openAi(demo);
            CompletionCreateParams params = CompletionCreateParams.builder().model("shape-model").prompt("Say hi").build();

            Completion completion = client.completions().create(params);
            assertThat(completion.choices().get(0).text()).isEqualTo("Hello from the demo model.");
            assertThat(completion.usage().orElseThrow().totalTokens()).isEqualTo(30);
            String streamed;
            try (var stream = client.completions().createStreaming(params)) {
                streamed = stream.stream().map(chunk -> chunk.choices().isEmpty() ? "" : chunk.choices().get(0).text())
                        .collect(Collectors.joining());
            }
            assertThat(streamed).isEqualTo("Hello from the demo model.");
            assertThat(remainingTokens(demo)).isEqualTo(70 - 30 - 30);

            RateLimitException refused = catchThrowableOfType(RateLimitException.class, () -> client.completions().create(params));
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.getMessage()).contains("Model capacity reached for shape-model");
            assertThat(refused.headers().values("retry-after")).hasSize(1);
            client.close();
        }
    }

    @Test
    void embeddingsChargeTheirPromptOnlyThenTheRateLimitException() throws Exception {
        try (DemoFixture demo = new DemoFixture("llm.ratelimit.models.shape-model.tpm=30",
                "llm.ratelimit.models.shape-model.saturation-threshold=1.0")) {
            OpenAIClient client = openAi(demo);
            EmbeddingCreateParams params = EmbeddingCreateParams.builder().model("shape-model").input("Hello").build();

            CreateEmbeddingResponse first = client.embeddings().create(params);
            assertThat(first.data()).hasSize(1);
            assertThat(first.data().get(0).embedding()).hasSize(MockEmbeddingsServlet.DIMENSIONS);
            assertThat(first.usage().promptTokens()).isEqualTo(10);
            assertThat(client.embeddings().create(params).usage().totalTokens()).isEqualTo(10);
            client.embeddings().create(params);                               // 20 of 30 used before it: admitted

            RateLimitException refused = catchThrowableOfType(RateLimitException.class, () -> client.embeddings().create(params));
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.getMessage()).contains("Model TPM: 30", "Remaining: 0");
            client.close();
        }
    }

    @Test
    void responsesJsonAndStreamThenTheRateLimitException() throws Exception {
        try (DemoFixture demo = new DemoFixture(LIMITS)) {
            OpenAIClient client = openAi(demo);
            ResponseCreateParams params = ResponseCreateParams.builder().model("shape-model").input("Hi").build();

            Response response = client.responses().create(params);
            assertThat(response.output().get(0).asMessage().content().get(0).asOutputText().text())
                    .isEqualTo("Hello from the demo model.");
            assertThat(response.usage().orElseThrow().inputTokens()).isEqualTo(10);
            assertThat(response.usage().orElseThrow().outputTokens()).isEqualTo(20);
            List<ResponseStreamEvent> events;
            try (var stream = client.responses().createStreaming(params)) {
                events = stream.stream().toList();
            }
            String deltas = events.stream().filter(ResponseStreamEvent::isOutputTextDelta)
                    .map(event -> event.asOutputTextDelta().delta()).collect(Collectors.joining());
            assertThat(deltas).isEqualTo("Hello from the demo model.");
            ResponseStreamEvent last = events.get(events.size() - 1);
            assertThat(last.isCompleted()).isTrue();
            assertThat(last.asCompleted().response().usage().orElseThrow().totalTokens()).isEqualTo(30);
            assertThat(remainingTokens(demo)).isEqualTo(70 - 30 - 30);

            RateLimitException refused = catchThrowableOfType(RateLimitException.class, () -> client.responses().create(params));
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.getMessage()).contains("Model capacity reached for shape-model");
            client.close();
        }
    }

    @Test
    void anthropicMessagesJsonAndStreamThenAnthropicsRateLimitException() throws Exception {
        try (DemoFixture demo = new DemoFixture(LIMITS)) {
            AnthropicClient client = AnthropicOkHttpClient.builder().apiKey("sk-alice")
                    .baseUrl("http://127.0.0.1:" + demo.port()).maxRetries(0).build();
            MessageCreateParams params = MessageCreateParams.builder().model("shape-model").maxTokens(1024)
                    .addUserMessage("Hi").build();

            Message message = client.messages().create(params);
            assertThat(message.content().get(0).text().orElseThrow().text()).isEqualTo("Hello from the demo model.");
            assertThat(message.usage().inputTokens()).isEqualTo(10);
            assertThat(message.usage().outputTokens()).isEqualTo(20);
            List<RawMessageStreamEvent> events;
            try (StreamResponse<RawMessageStreamEvent> stream = client.messages().createStreaming(params)) {
                events = stream.stream().toList();
            }
            String text = events.stream().filter(RawMessageStreamEvent::isContentBlockDelta)
                    .map(event -> event.asContentBlockDelta().delta().text().orElseThrow().text())
                    .collect(Collectors.joining());
            assertThat(text).isEqualTo("Hello from the demo model.");
            assertThat(events.stream().filter(RawMessageStreamEvent::isMessageDelta).findFirst().orElseThrow()
                    .asMessageDelta().usage().outputTokens()).isEqualTo(20);
            assertThat(events.get(events.size() - 1).isMessageStop()).isTrue();
            assertThat(remainingTokens(demo)).isEqualTo(70 - 30 - 30);

            com.anthropic.errors.RateLimitException refused = catchThrowableOfType(
                    com.anthropic.errors.RateLimitException.class, () -> client.messages().create(params));
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.getMessage()).contains("Model capacity reached for shape-model");
            assertThat(refused.headers().values("retry-after")).hasSize(1);
            client.close();
        }
    }
}
