package dev.llmratelimit.outbound.http;

import dev.llmratelimit.outbound.Dimension;
import dev.llmratelimit.outbound.FakeProvider;
import dev.llmratelimit.outbound.OutboundLimitException;
import dev.llmratelimit.outbound.OutboundLimiter;
import dev.llmratelimit.outbound.OutboundLimiters;
import dev.llmratelimit.outbound.ProviderSettings;
import dev.llmratelimit.outbound.memory.MemoryOutboundStore;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.testsupport.RedisTestSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Anthropic-like limits, input and output tokens per minute apart, through the {@code java.net.http}
 * wrapper against a local provider. Each call is estimated at its prompt in and {@code max_tokens} (40) out;
 * the provider answers 20 output tokens. Buckets hold one minute and do not refill in the test's time
 * (memory: a clock that stands still; Redis: 100 OTPM refill 1 token in 0.6 s).
 */
class InputAndOutputTokensTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final String MESSAGE = "{\"model\":\"claude-sonnet-4-5\",\"max_tokens\":40,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    private final MutableClock clock = new MutableClock();
    private final List<OutboundLimiter> limiters = new ArrayList<>();
    private FakeProvider provider;

    @AfterEach
    void stop() {
        limiters.forEach(OutboundLimiter::close);
        if (provider != null) {
            provider.close();
        }
    }

    private OutboundLimiter inMemory(long otpm) {
        provider.resetsAgainst(clock);
        OutboundLimiter limiter = OutboundLimiter.builder().clock(clock)
                .store(ProviderSettings.StoreKind.MEMORY, new MemoryOutboundStore(clock))
                .provider("anthropic", p -> p.baseUrl(provider.baseUrl()).rpm(1000).itpm(100_000).otpm(otpm)
                        .headroom(1.0).maxWait(Duration.ZERO))
                .build();
        limiters.add(limiter);
        return limiter;
    }

    /** One application instance on the shared Redis, with its own client. */
    private OutboundLimiter onRedis(long otpm) {
        Map<String, String> properties = RedisTestSettings.properties(REDIS.server().address());
        properties.put("llm.ratelimit.outbound.anthropic.base-url", provider.baseUrl());
        properties.put("llm.ratelimit.outbound.anthropic.rpm", "1000");
        properties.put("llm.ratelimit.outbound.anthropic.models.claude-sonnet-4-5.itpm", "100000");
        properties.put("llm.ratelimit.outbound.anthropic.models.claude-sonnet-4-5.otpm", Long.toString(otpm));
        properties.put("llm.ratelimit.outbound.anthropic.headroom", "1.0");
        properties.put("llm.ratelimit.outbound.anthropic.max-wait", "0s");
        properties.put("llm.ratelimit.outbound.anthropic.store", "redis");
        OutboundLimiter limiter = OutboundLimiters.fromProperties(properties);
        limiters.add(limiter);
        return limiter;
    }

    /** Sends {@code calls} messages, the i-th through {@code clients[i % n]}; the refusals, in order. */
    private List<OutboundLimitException> send(int calls, HttpClient... clients) throws IOException, InterruptedException {
        List<OutboundLimitException> refusals = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            try {
                HttpResponse<String> response = clients[i % clients.length].send(HttpRequest.newBuilder(
                                URI.create(provider.baseUrl() + "/messages")).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(MESSAGE)).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode()).isEqualTo(200);
            } catch (OutboundLimitException refused) {
                refusals.add(refused);
            }
        }
        return refusals;
    }

    private static HttpClient wrapped(OutboundLimiter limiter) {
        return LimitedHttpClient.wrap(HttpClient.newHttpClient(), limiter);
    }

    /**
     * 100 output tokens a minute: each call takes 40 and gives 20 back when its usage comes, so 4 calls fit
     * (100 - 20 x 4 = 20 left, below the next estimate of 40); without the settlement, 2 would. Input
     * tokens (100 000) are far from short: the refusal names the output bucket.
     */
    private void assertOutputTokensRefuseTheFifthCall(List<OutboundLimitException> refusals) {
        assertThat(provider.served()).isEqualTo(4);
        assertThat(refusals).hasSize(2).allSatisfy(refused -> {
            assertThat(refused.reason()).isEqualTo(OutboundLimitException.Reason.WAIT_TOO_LONG);
            assertThat(refused.shortOf()).isEqualTo(Dimension.OUTPUT_TOKENS);
            assertThat(refused.getMessage()).endsWith("beyond max-wait (output tokens)");
        });
        assertThat(provider.tooManyRequests()).isZero();
    }

    @Test
    void outputTokensRunOutFirstAndSettleToTheUsageInMemory() throws Exception {
        provider = new FakeProvider(1_000_000, 1_000_000, 1.0);
        assertOutputTokensRefuseTheFifthCall(send(6, wrapped(inMemory(100))));
    }

    @Test
    void twoInstancesOnRedisShareTheOutputBucket() throws Exception {
        provider = new FakeProvider(1_000_000, 1_000_000, 1.0);
        assertOutputTokensRefuseTheFifthCall(send(6, wrapped(onRedis(100)), wrapped(onRedis(100))));
    }

    /**
     * The provider allows 100 output tokens a minute, the limiter believes 6 000: the provider's
     * {@code anthropic-ratelimit-output-tokens-remaining} after each answer lowers the output bucket, so the
     * limiter stops when the provider would (5 calls of 20 output tokens), and the provider never answers 429.
     */
    @Test
    void theProvidersOutputFigureLowersTheOutputBucket() throws Exception {
        provider = new FakeProvider(1_000_000, 1_000_000, 1.0).limitInputAndOutput(1_000_000, 100, 1.0);
        List<OutboundLimitException> refusals = send(8, wrapped(inMemory(6_000)));
        assertThat(provider.served()).isEqualTo(5);
        assertThat(refusals).hasSize(3).allSatisfy(refused -> assertThat(refused.shortOf()).isEqualTo(Dimension.OUTPUT_TOKENS));
        assertThat(provider.tooManyRequests()).isZero();
        assertThat(provider.perWindow().get(0)[3]).as("output tokens served").isEqualTo(100);
    }
}
