package dev.llmratelimit.outbound.langchain4j;

import dev.langchain4j.model.anthropic.AnthropicChatModel;
import dev.langchain4j.model.anthropic.AnthropicStreamingChatModel;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import dev.llmratelimit.outbound.FakeProvider;
import dev.llmratelimit.outbound.OutboundLimiter;
import dev.llmratelimit.outbound.OutboundLimiters;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.testsupport.RedisTestSettings;
import dev.llmratelimit.testsupport.StartTogether;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real LangChain4j models at three times their providers' rate, from several threads, on one limiter
 * and on two limiters sharing one real Redis: no call fails, and neither provider ever has to answer 429.
 * Scaled to run in seconds: each provider holds one second of its 600 RPM (10 requests, refilled at 10 a
 * second) and so do the limiters (burst 1/60) at 90 % of the rate. Each provider gets six threads of eight
 * calls, one every 200 ms (30 a second): chat and streamed chat on OpenAI, chat and streamed chat on
 * Anthropic. The models do not retry, so a 429 would reach the caller.
 */
class LangChain4jUnderLoadTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final int THREADS_PER_PROVIDER = 6;
    private static final int CALLS_PER_THREAD = 8;
    private static final long INTERVAL_NANOS = 200_000_000L;

    @Test
    void oneLimiterAtThreeTimesTheRate() throws Exception {
        run(1, Map.of());
    }

    @Test
    void twoLimitersOnOneRedisAtThreeTimesTheRate() throws Exception {
        run(2, RedisTestSettings.properties(REDIS.server().address()));
    }

    private void run(int instances, Map<String, String> redis) throws Exception {
        try (FakeProvider openAi = provider(); FakeProvider anthropic = provider()) {
            List<OutboundLimiter> limiters = new ArrayList<>();
            for (int i = 0; i < instances; i++) {
                Map<String, String> properties = new HashMap<>(redis);
                limit(properties, "openai", openAi, !redis.isEmpty());
                limit(properties, "anthropic", anthropic, !redis.isEmpty());
                limiters.add(OutboundLimiters.fromProperties(properties));
            }
            AtomicInteger answered = new AtomicInteger();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            StartTogether load = new StartTogether();
            int threadsPerInstance = THREADS_PER_PROVIDER / instances;
            for (OutboundLimiter limiter : limiters) {
                ChatModel openAiChat = OpenAiChatModel.builder().baseUrl(openAi.baseUrl()).apiKey("sk-test")
                        .modelName("gpt-4o").maxTokens(40).maxRetries(0)
                        .httpClientBuilder(LimitedLangChain4jHttpClientBuilder.of(limiter)).build();
                StreamingChatModel openAiStream = OpenAiStreamingChatModel.builder().baseUrl(openAi.baseUrl())
                        .apiKey("sk-test").modelName("gpt-4o").maxTokens(40)
                        .httpClientBuilder(LimitedLangChain4jHttpClientBuilder.of(limiter)).build();
                ChatModel claude = AnthropicChatModel.builder().baseUrl(anthropic.baseUrl()).apiKey("sk-ant-test")
                        .modelName("claude-sonnet-4-5").maxTokens(40).maxRetries(0)
                        .httpClientBuilder(LimitedLangChain4jHttpClientBuilder.of(limiter)).build();
                StreamingChatModel claudeStream = AnthropicStreamingChatModel.builder().baseUrl(anthropic.baseUrl())
                        .apiKey("sk-ant-test").modelName("claude-sonnet-4-5").maxTokens(40)
                        .httpClientBuilder(LimitedLangChain4jHttpClientBuilder.of(limiter)).build();
                for (int t = 0; t < threadsPerInstance; t++) {
                    boolean streamed = t % 2 == 1;
                    load.add(paced(streamed ? () -> LangChain4jModelsTest.streamed(openAiStream, "hi").aiMessage().text()
                            : () -> openAiChat.chat("hi"), answered, failures));
                    load.add(paced(streamed ? () -> LangChain4jModelsTest.streamed(claudeStream, "hi").aiMessage().text()
                            : () -> claude.chat("hi"), answered, failures));
                }
            }
            load.run(Duration.ofSeconds(40));
            limiters.forEach(OutboundLimiter::close);

            assertThat(failures).isEmpty();
            assertThat(answered.get()).isEqualTo(2 * THREADS_PER_PROVIDER * CALLS_PER_THREAD);
            for (FakeProvider provider : List.of(openAi, anthropic)) {
                assertThat(provider.tooManyRequests()).isZero();
                assertThat(provider.served()).isEqualTo(THREADS_PER_PROVIDER * CALLS_PER_THREAD);
                // never more in one second than its bucket holds plus one second of refill
                assertThat(provider.perWindow()).allSatisfy(window -> assertThat(window[0]).isLessThanOrEqualTo(20));
            }
        }
    }

    private static FakeProvider provider() throws Exception {
        return new FakeProvider(600, 60_000, 1.0 / 60, 1_000_000_000L, System::nanoTime);
    }

    private static void limit(Map<String, String> properties, String name, FakeProvider provider, boolean redis) {
        String prefix = OutboundLimiters.PREFIX + name + ".";
        properties.put(prefix + "base-url", provider.baseUrl());
        properties.put(prefix + "rpm", "600");
        properties.put(prefix + "tpm", "60000");
        properties.put(prefix + "burst", Double.toString(1.0 / 60));
        properties.put(prefix + "max-wait", "20s");
        properties.put(prefix + "store", redis ? "redis" : "memory");
    }

    /** {@value #CALLS_PER_THREAD} calls, one every 200 ms (or as soon as the last one returned). */
    private static Callable<Void> paced(Callable<String> call, AtomicInteger answered, ConcurrentLinkedQueue<Throwable> failures) {
        return () -> {
            long next = System.nanoTime();
            for (int i = 0; i < CALLS_PER_THREAD; i++) {
                try {
                    assertThat(call.call()).isIn("hello", "word word word ");
                    answered.incrementAndGet();
                } catch (Exception | AssertionError e) {
                    failures.add(e);
                }
                next += INTERVAL_NANOS;
                long pause = next - System.nanoTime();
                if (pause > 0) {
                    Thread.sleep(pause / 1_000_000, (int) (pause % 1_000_000));
                }
            }
            return null;
        };
    }
}
