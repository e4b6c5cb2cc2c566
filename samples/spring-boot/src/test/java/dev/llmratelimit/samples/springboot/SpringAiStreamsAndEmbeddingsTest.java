package dev.llmratelimit.samples.springboot;

import dev.llmratelimit.outbound.OutboundLimitException;
import dev.llmratelimit.outbound.OutboundLimiter;
import dev.llmratelimit.outbound.Tokens;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.ai.anthropic.AnthropicChatModel;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiEmbeddingModel;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring AI's streamed chat and its embeddings (Spring AI 2.0: the providers' SDKs on OkHttp, through the
 * OkHttp interceptor; Spring AI 1.1: the WebClient filter and the RestClient interceptor) settle their
 * permits to the usage the provider reported. The buckets hold 6 000 tokens and refill one token every 10 s
 * (6 a minute, 1 000 minutes' burst), so what is left after a call is exactly what its usage did not take.
 * Anthropic's model has input and output buckets of its own, each settled to its part of the usage.
 */
@SpringBootTest
@DirtiesContext
class SpringAiStreamsAndEmbeddingsTest {

    private static final long CAPACITY = 6_000;
    private static final LocalProvider OPENAI = LocalProvider.unlimited();
    private static final LocalProvider ANTHROPIC = LocalProvider.unlimited();

    @Autowired
    OpenAiChatModel openAi;

    @Autowired
    AnthropicChatModel anthropic;

    @Autowired
    OpenAiEmbeddingModel embeddings;

    @Autowired
    OutboundLimiter limiter;

    @DynamicPropertySource
    static void providers(DynamicPropertyRegistry properties) {
        properties.add("spring.ai.openai.base-url", OPENAI::baseUrl);
        properties.add("spring.ai.openai.chat.options.model", () -> "gpt-4o-mini");
        properties.add("spring.ai.openai.chat.options.max-tokens", () -> "100");
        properties.add("spring.ai.openai.embedding.options.model", () -> "text-embedding-3-small");
        properties.add("spring.ai.anthropic.base-url", ANTHROPIC::baseUrl);
        properties.add("spring.ai.anthropic.chat.options.model", () -> "claude-haiku-4-5");
        properties.add("spring.ai.anthropic.chat.options.max-tokens", () -> "100");
        limit(properties, "openai", OPENAI, "tpm");
        limit(properties, "anthropic", ANTHROPIC, "itpm");
        properties.add("llm.ratelimit.outbound.anthropic.otpm", () -> "6");
    }

    private static void limit(DynamicPropertyRegistry properties, String name, LocalProvider provider, String tokens) {
        String prefix = "llm.ratelimit.outbound." + name + ".";
        properties.add(prefix + "base-url", provider::baseUrl);
        properties.add(prefix + "rpm", () -> "1000");
        properties.add(prefix + tokens, () -> "6");
        properties.add(prefix + "burst", () -> "1000");
        properties.add(prefix + "headroom", () -> "1.0");
        properties.add(prefix + "max-wait", () -> "0s");
    }

    @AfterAll
    static void stop() {
        OPENAI.close();
        ANTHROPIC.close();
    }

    @Test
    void anOpenAiStreamAsksForItsUsageAndSettlesToIt() throws Exception {
        List<String> parts = ChatClient.create(openAi).prompt("Hi").stream().content().collectList()
                .block(Duration.ofSeconds(30));

        assertThat(String.join("", parts)).isEqualTo("Hello!");
        assertThat(OPENAI.bodies()).hasSize(1);
        assertThat(OPENAI.bodies().get(0).replace(" ", "")).contains("\"include_usage\":true");
        // 10 prompt + 20 completion tokens
        assertThat(settled(limiter, "openai", "gpt-4o-mini", n -> new Tokens(n, 0), CAPACITY - 30)).isEqualTo(CAPACITY - 30);
    }

    @Test
    void anAnthropicStreamSettlesEachBucketToItsPartOfTheUsage() throws Exception {
        List<String> parts = ChatClient.create(anthropic).prompt("Hi").stream().content().collectList()
                .block(Duration.ofSeconds(30));

        assertThat(String.join("", parts)).isEqualTo("Hello!");
        // message_start's 10 input tokens, message_delta's 20 output tokens
        assertThat(settled(limiter, "anthropic", "claude-haiku-4-5", n -> new Tokens(n, 0), CAPACITY - 10)).isEqualTo(CAPACITY - 10);
        assertThat(settled(limiter, "anthropic", "claude-haiku-4-5", n -> new Tokens(0, n), CAPACITY - 20)).isEqualTo(CAPACITY - 20);
    }

    @Test
    void anOpenAiEmbeddingSettlesToItsUsage() throws Exception {
        float[] vector = embeddings.embed("Hi");

        assertThat(vector).containsExactly(0.25f, 0.5f, 0.75f);
        String model = OPENAI.lastModel();
        assertThat(model).isEqualTo("text-embedding-3-small");
        assertThat(settled(limiter, "openai", model, n -> new Tokens(n, 0), CAPACITY - LocalProvider.EMBEDDING_TOKENS))
                .isEqualTo(CAPACITY - LocalProvider.EMBEDDING_TOKENS);
    }

    /**
     * What is left of one bucket once the call has settled (a stream settles when its body ends, which may
     * follow the last event the application sees by a moment): the largest probe that fits now.
     */
    static long settled(OutboundLimiter limiter, String provider, String model, Function<Long, Tokens> probe,
                        long expected) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        long left = left(limiter, provider, model, probe);
        while (left != expected && System.nanoTime() < deadline) {
            Thread.sleep(20);
            left = left(limiter, provider, model, probe);
        }
        return left;
    }

    /** The largest probe that fits without waiting; each probe that fits is given back at once. */
    private static long left(OutboundLimiter limiter, String provider, String model, Function<Long, Tokens> probe)
            throws InterruptedException {
        long low = 0;
        long high = CAPACITY;
        while (low < high) {
            long mid = (low + high + 1) / 2;
            try {
                limiter.acquire(provider, model, probe.apply(mid)).cancel().join();
                low = mid;
            } catch (OutboundLimitException tooMuch) {
                high = mid - 1;
            }
        }
        return low;
    }
}
