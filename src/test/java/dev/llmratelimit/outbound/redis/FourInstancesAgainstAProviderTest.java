package dev.llmratelimit.outbound.redis;

import dev.llmratelimit.outbound.FakeProvider;
import dev.llmratelimit.outbound.OutboundLimitException;
import dev.llmratelimit.outbound.OutboundLimiter;
import dev.llmratelimit.outbound.OutboundLimiters;
import dev.llmratelimit.outbound.http.LimitedHttpClient;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.testsupport.RedisTestSettings;
import dev.llmratelimit.testsupport.StartTogether;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * End to end: four application instances, each with its own limiter and Redis client on one real Redis,
 * call a provider that enforces its own limits, at three times its rate. The provider never has to
 * answer 429. Scaled to run in seconds: the provider holds one second of its 600 RPM / 12 000 TPM (10
 * requests, 200 tokens) and so do the limiters (burst 1/60) at 90 % of the rate.
 */
class FourInstancesAgainstAProviderTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final String CHAT = "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":20}";

    @Test
    void atThreeTimesItsRateTheProviderNeverAnswers429() throws Exception {
        try (FakeProvider provider = new FakeProvider(600, 12_000, 1.0 / 60)) {
            List<OutboundLimiter> limiters = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                Map<String, String> properties = RedisTestSettings.properties(REDIS.server().address());
                properties.put("llm.ratelimit.outbound.openai.base-url", provider.baseUrl());
                properties.put("llm.ratelimit.outbound.openai.rpm", "600");
                properties.put("llm.ratelimit.outbound.openai.tpm", "12000");
                properties.put("llm.ratelimit.outbound.openai.burst", Double.toString(1.0 / 60));
                properties.put("llm.ratelimit.outbound.openai.max-wait", "300ms");
                properties.put("llm.ratelimit.outbound.openai.store", "redis");
                limiters.add(OutboundLimiters.fromProperties(properties));
            }
            AtomicInteger ok = new AtomicInteger();
            AtomicInteger refusedHere = new AtomicInteger();
            AtomicInteger other = new AtomicInteger();
            // 30 calls a second in all (3 x 10) for 2.5 s: each of 4 instances x 3 threads starts one every 400 ms
            long end = System.nanoTime() + 2_500_000_000L;
            StartTogether load = new StartTogether();
            for (OutboundLimiter limiter : limiters) {
                HttpClient http = LimitedHttpClient.wrap(HttpClient.newHttpClient(), limiter);
                for (int t = 0; t < 3; t++) {
                    load.add(() -> {
                        long next = System.nanoTime();
                        while (next < end) {
                            try {
                                HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                                                URI.create(provider.baseUrl() + "/chat/completions"))
                                        .POST(HttpRequest.BodyPublishers.ofString(CHAT)).build(),
                                        HttpResponse.BodyHandlers.ofString());
                                (response.statusCode() == 200 ? ok : other).incrementAndGet();
                            } catch (OutboundLimitException e) {
                                refusedHere.incrementAndGet();
                            }
                            next += 400_000_000L;
                            long pause = next - System.nanoTime();
                            if (pause > 0) {
                                Thread.sleep(pause / 1_000_000, (int) (pause % 1_000_000));
                            }
                        }
                        return null;
                    });
                }
            }
            load.run(Duration.ofSeconds(60));
            limiters.forEach(OutboundLimiter::close);

            assertThat(provider.tooManyRequests()).isZero();
            assertThat(other.get()).isZero();
            assertThat(provider.served()).isEqualTo(ok.get());
            // 2.5 s of the limiters' 9 a second plus their 9 to start with, at most
            assertThat(ok.get()).isBetween(15, 9 + 23);
            assertThat(refusedHere.get()).as("the load was three times the rate").isPositive();
        }
    }
}
