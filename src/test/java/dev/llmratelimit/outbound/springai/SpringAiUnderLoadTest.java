package dev.llmratelimit.outbound.springai;

import dev.llmratelimit.outbound.FakeProvider;
import dev.llmratelimit.outbound.OutboundLimiter;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.testsupport.RedisTestSettings;
import dev.llmratelimit.testsupport.StartTogether;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.ai.anthropic.AnthropicChatModel;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring Boot applications whose limiter comes from application.yml ({@code outbound-springai.yml}) call
 * two local providers through the real Spring AI models at three times the providers' rate, from several
 * threads: one application, then two sharing one real Redis. No call fails, and neither provider ever has
 * to answer 429. Each provider gets six threads of eight calls, one every 200 ms (30 a second, against its
 * 10): chat through the RestClient, streamed chat through the WebClient. Spring AI does not retry, so a
 * 429 would reach the caller.
 */
class SpringAiUnderLoadTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final int THREADS_PER_PROVIDER = 6;
    private static final int CALLS_PER_THREAD = 8;
    private static final long INTERVAL_NANOS = 200_000_000L;

    @Test
    void oneApplicationAtThreeTimesTheRate() throws Exception {
        run(1, Map.of("fake.store", "memory"));
    }

    @Test
    void twoApplicationsOnOneRedisAtThreeTimesTheRate() throws Exception {
        Map<String, String> redis = new HashMap<>(RedisTestSettings.properties(REDIS.server().address()));
        redis.put("fake.store", "redis");
        run(2, redis);
    }

    private void run(int instances, Map<String, String> store) throws Exception {
        try (FakeProvider openAi = provider(); FakeProvider anthropic = provider()) {
            Map<String, String> properties = new HashMap<>(store);
            properties.put("spring.config.name", "outbound-springai");
            properties.put("fake.openai", openAi.baseUrl());
            properties.put("fake.anthropic", anthropic.baseUrl());
            List<ConfigurableApplicationContext> applications = new ArrayList<>();
            AtomicInteger answered = new AtomicInteger();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            try {
                StartTogether load = new StartTogether();
                for (int i = 0; i < instances; i++) {
                    ConfigurableApplicationContext application = SpringAiApplication.start(openAi, anthropic, properties);
                    applications.add(application);
                    assertThat(application.getBean(OutboundLimiter.class).provider("openai").limits("gpt-4o").requestsPerMinute()).isEqualTo(600);
                    ChatModel gpt = application.getBean(OpenAiChatModel.class);
                    ChatModel claude = application.getBean(AnthropicChatModel.class);
                    for (int t = 0; t < THREADS_PER_PROVIDER / instances; t++) {
                        boolean streamed = t % 2 == 1;
                        for (ChatModel model : List.of(gpt, claude)) {
                            load.add(paced(streamed ? () -> streamed(model) : () -> model.call("hi"), answered, failures));
                        }
                    }
                }
                load.run(Duration.ofSeconds(40));
            } finally {
                applications.forEach(ConfigurableApplicationContext::close);
            }

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

    private static String streamed(ChatModel model) {
        List<ChatResponse> responses = model.stream(new Prompt("hi")).collectList().block(Duration.ofSeconds(30));
        return Objects.requireNonNull(responses).stream()
                .filter(r -> r.getResult() != null && r.getResult().getOutput().getText() != null)
                .map(r -> r.getResult().getOutput().getText()).collect(Collectors.joining());
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
