package dev.llmratelimit.demo;

import com.openai.client.OpenAIClient;
import com.openai.client.OpenAIClientAsync;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.client.okhttp.OpenAIOkHttpClientAsync;
import com.openai.core.http.StreamResponse;
import com.openai.helpers.ChatCompletionAccumulator;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import dev.llmratelimit.testsupport.Http;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenAI Java SDK's stream helpers against the demo (its mock streams as OpenAI does): the
 * {@link ChatCompletionAccumulator} over the blocking and the asynchronous client, with and without
 * {@code include_usage}; the filter charges the same 30 tokens either way.
 */
class OpenAiSdkStreamingTest {

    private static final String JSON = "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";

    private static ChatCompletionCreateParams params(boolean includeUsage) {
        ChatCompletionCreateParams.Builder params = ChatCompletionCreateParams.builder().model("gpt-4o").addUserMessage("Hi");
        if (includeUsage) {
            params.streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build());
        }
        return params.build();
    }

    private static long remainingTokens(DemoFixture demo) {
        return Long.parseLong(Http.header(demo.http().chat("sk-alice", JSON), "x-ratelimit-remaining-tokens"));
    }

    /** The blocking client's stream, every chunk through the accumulator. */
    private static List<ChatCompletionChunk> streamBlocking(DemoFixture demo, boolean includeUsage,
                                                            ChatCompletionAccumulator accumulator) {
        OpenAIClient client = OpenAIOkHttpClient.builder().apiKey("sk-alice").baseUrl(demo.baseUrl()).maxRetries(0).build();
        List<ChatCompletionChunk> chunks = new ArrayList<>();
        try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(params(includeUsage))) {
            stream.stream().map(accumulator::accumulate).forEach(chunks::add);
        } finally {
            client.close();
        }
        return chunks;
    }

    @Test
    void theAccumulatorBuildsTheCompletionOfAStreamWithoutUsage() throws Exception {
        try (DemoFixture demo = new DemoFixture()) {
            ChatCompletionAccumulator accumulator = ChatCompletionAccumulator.create();
            List<ChatCompletionChunk> chunks = streamBlocking(demo, false, accumulator);
            ChatCompletion completion = accumulator.chatCompletion();

            assertThat(chunks).hasSize(7);                                     // role, 5 words, finish_reason
            assertThat(chunks.get(6).choices().get(0).finishReason()).hasValue(ChatCompletionChunk.Choice.FinishReason.STOP);
            assertThat(chunks.get(5).choices().get(0).finishReason()).isEmpty();
            assertThat(completion.choices()).hasSize(1);
            assertThat(completion.choices().get(0).message().content()).hasValue("Hello from the demo model.");
            assertThat(completion.choices().get(0).finishReason()).isEqualTo(ChatCompletion.Choice.FinishReason.STOP);
            assertThat(completion.model()).isEqualTo("gpt-4o");
            assertThat(completion.usage()).isEmpty();
            assertThat(remainingTokens(demo)).isEqualTo(100_000 - 30);        // charged though the client saw no usage
        }
    }

    @Test
    void theAccumulatorTakesTheUsageChunkWhenTheClientAsksForIt() throws Exception {
        try (DemoFixture demo = new DemoFixture()) {
            ChatCompletionAccumulator accumulator = ChatCompletionAccumulator.create();
            List<ChatCompletionChunk> chunks = streamBlocking(demo, true, accumulator);
            ChatCompletion completion = accumulator.chatCompletion();

            assertThat(chunks).hasSize(8);
            assertThat(chunks.get(7).choices()).isEmpty();
            assertThat(completion.choices().get(0).message().content()).hasValue("Hello from the demo model.");
            assertThat(completion.usage().orElseThrow().promptTokens()).isEqualTo(10);
            assertThat(completion.usage().orElseThrow().completionTokens()).isEqualTo(20);
            assertThat(completion.usage().orElseThrow().totalTokens()).isEqualTo(30);
            assertThat(remainingTokens(demo)).isEqualTo(100_000 - 30);
        }
    }

    @Test
    void theAsyncClientsSubscriptionCompletesWithTheWholeAnswer() throws Exception {
        try (DemoFixture demo = new DemoFixture()) {
            OpenAIClientAsync client = OpenAIOkHttpClientAsync.builder().apiKey("sk-alice").baseUrl(demo.baseUrl())
                    .maxRetries(0).build();
            ChatCompletionAccumulator accumulator = ChatCompletionAccumulator.create();
            client.chat().completions().createStreaming(params(true))
                    .subscribe(chunk -> accumulator.accumulate(chunk))
                    .onCompleteFuture().get(30, TimeUnit.SECONDS);
            ChatCompletion completion = accumulator.chatCompletion();

            assertThat(completion.choices().get(0).message().content()).hasValue("Hello from the demo model.");
            assertThat(completion.choices().get(0).finishReason()).isEqualTo(ChatCompletion.Choice.FinishReason.STOP);
            assertThat(completion.usage().orElseThrow().totalTokens()).isEqualTo(30);
            client.close();
        }
    }
}
