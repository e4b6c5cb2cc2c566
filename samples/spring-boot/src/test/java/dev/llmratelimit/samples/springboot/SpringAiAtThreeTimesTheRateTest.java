package dev.llmratelimit.samples.springboot;

import org.junit.jupiter.api.Test;
import org.springframework.ai.anthropic.AnthropicChatModel;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances of the application, their client-side limiters sharing one real Redis, call an OpenAI-like
 * and an Anthropic-like local provider through Spring AI's chat models (Spring AI 2.0: the SDKs on OkHttp;
 * 1.1: RestClient and WebClient) at three times the providers' rate. Each provider allows 600 requests a
 * minute, 10 at once; the limiters are set to the same figures with one second's burst (9 at 90 %). Each
 * provider gets six threads (three per instance, every second one streaming) of eight calls, one every 200
 * ms: 30 a second against its 10. No call fails, and neither provider ever answers 429.
 */
class SpringAiAtThreeTimesTheRateTest {

    private static final int THREADS_PER_PROVIDER = 6;
    private static final int CALLS_PER_THREAD = 8;
    private static final long INTERVAL_NANOS = 200_000_000L;

    @Test
    void twoInstancesOnOneRedisNeverMakeAProviderAnswer429() throws Exception {
        try (RedisProcess redis = new RedisProcess();
             LocalProvider openAi = new LocalProvider(600, 10);
             LocalProvider anthropic = new LocalProvider(600, 10)) {
            AtomicInteger answered = new AtomicInteger();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            List<Callable<Void>> load = new ArrayList<>();
            try (ConfigurableApplicationContext one = start(redis, openAi, anthropic);
                 ConfigurableApplicationContext two = start(redis, openAi, anthropic)) {
                for (ConfigurableApplicationContext application : List.of(one, two)) {
                    ChatClient gpt = ChatClient.create(application.getBean(OpenAiChatModel.class));
                    ChatClient claude = ChatClient.create(application.getBean(AnthropicChatModel.class));
                    for (int t = 0; t < THREADS_PER_PROVIDER / 2; t++) {
                        boolean streamed = t % 2 == 1;
                        for (ChatClient client : List.of(gpt, claude)) {
                            load.add(paced(streamed ? () -> streamed(client) : () -> client.prompt("Hi").call().content(),
                                    answered, failures));
                        }
                    }
                }
                ExecutorService threads = Executors.newFixedThreadPool(load.size());
                try {
                    for (Future<Void> done : threads.invokeAll(load, 120, TimeUnit.SECONDS)) {
                        done.get();
                    }
                } finally {
                    threads.shutdownNow();
                }
            }

            assertThat(failures).isEmpty();
            assertThat(answered.get()).isEqualTo(2 * THREADS_PER_PROVIDER * CALLS_PER_THREAD);
            for (LocalProvider provider : List.of(openAi, anthropic)) {
                assertThat(provider.tooManyRequests()).isZero();
                assertThat(provider.served()).isEqualTo(THREADS_PER_PROVIDER * CALLS_PER_THREAD);
                // never more in one second than it holds plus one second of refill
                assertThat(provider.mostInOneSecond()).isLessThanOrEqualTo(20);
            }
        }
    }

    private static ConfigurableApplicationContext start(RedisProcess redis, LocalProvider openAi, LocalProvider anthropic) {
        List<String> args = new ArrayList<>(List.of("--server.port=0",
                "--spring.ai.openai.base-url=" + openAi.baseUrl(), "--spring.ai.openai.chat.options.model=gpt-4o-mini",
                "--spring.ai.openai.chat.options.max-tokens=40",
                "--spring.ai.anthropic.base-url=" + anthropic.baseUrl(),
                "--spring.ai.anthropic.chat.options.model=claude-haiku-4-5",
                "--spring.ai.anthropic.chat.options.max-tokens=40",
                "--llm.ratelimit.redis.address=" + redis.address()));
        for (String provider : List.of("openai", "anthropic")) {
            String prefix = "--llm.ratelimit.outbound." + provider + ".";
            args.add(prefix + "base-url=" + (provider.equals("openai") ? openAi : anthropic).baseUrl());
            args.add(prefix + "rpm=600");
            args.add(prefix + "burst=" + 1.0 / 60);
            args.add(prefix + "store=redis");
        }
        return new SpringApplicationBuilder(SampleApplication.class).run(args.toArray(String[]::new));
    }

    private static String streamed(ChatClient client) {
        List<String> parts = client.prompt("Hi").stream().content().collectList().block(Duration.ofSeconds(60));
        return String.join("", parts);
    }

    /** {@value #CALLS_PER_THREAD} calls, one every 200 ms (or as soon as the last one returned). */
    private static Callable<Void> paced(Callable<String> call, AtomicInteger answered, ConcurrentLinkedQueue<Throwable> failures) {
        return () -> {
            long next = System.nanoTime();
            for (int i = 0; i < CALLS_PER_THREAD; i++) {
                try {
                    assertThat(call.call()).isEqualTo("Hello!");
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
