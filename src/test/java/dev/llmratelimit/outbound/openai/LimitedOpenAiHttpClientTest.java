package dev.llmratelimit.outbound.openai;

import com.openai.client.OpenAIClient;
import com.openai.client.OpenAIClientImpl;
import com.openai.client.okhttp.OkHttpClient;
import com.openai.core.ClientOptions;
import com.openai.core.Sleeper;
import com.openai.core.http.StreamResponse;
import com.openai.errors.RateLimitException;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import dev.llmratelimit.outbound.BucketKey;
import dev.llmratelimit.outbound.BucketLimits;
import dev.llmratelimit.outbound.Buckets;
import dev.llmratelimit.outbound.ClockWaiters;
import dev.llmratelimit.outbound.FakeProvider;
import dev.llmratelimit.outbound.ForwardingOutboundStore;
import dev.llmratelimit.outbound.Grant;
import dev.llmratelimit.outbound.OutboundLimiter;
import dev.llmratelimit.outbound.OutboundStore;
import dev.llmratelimit.outbound.ProviderSettings;
import dev.llmratelimit.outbound.Tokens;
import dev.llmratelimit.outbound.memory.MemoryOutboundStore;
import dev.llmratelimit.testsupport.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** The official OpenAI Java SDK with the limiter in its HTTP client hook, against a local provider. */
class LimitedOpenAiHttpClientTest {

    private final MutableClock clock = new MutableClock();
    private final MemoryOutboundStore memory = new MemoryOutboundStore(clock);
    private final AtomicInteger acquisitions = new AtomicInteger();
    private final List<Duration> sdkSleeps = new CopyOnWriteArrayList<>();
    private FakeProvider provider;
    private OutboundLimiter limiter;
    private OpenAIClient client;

    @BeforeEach
    void start() throws Exception {
        provider = new FakeProvider(1_000_000, 1_000_000, 1.0);
        OutboundStore counting = new ForwardingOutboundStore(memory) {
            @Override
            public CompletableFuture<Grant> acquire(BucketKey key, BucketLimits limits, String permitId, Tokens tokens,
                                                    long maxWaitMillis, long leaseMillis) {
                acquisitions.incrementAndGet();
                return super.acquire(key, limits, permitId, tokens, maxWaitMillis, leaseMillis);
            }
        };
        limiter = OutboundLimiter.builder().clock(clock).waiter(ClockWaiters.moving(clock))
                .store(ProviderSettings.StoreKind.MEMORY, counting)
                .provider("openai", p -> p.baseUrl(provider.baseUrl()).rpm(1000).tpm(1000).headroom(1.0)
                        .maxWait(Duration.ofSeconds(5)))
                .build();
        client = new OpenAIClientImpl(ClientOptions.builder()
                .httpClient(LimitedOpenAiHttpClient.wrap(OkHttpClient.builder().build(), limiter))
                .sleeper(new Sleeper() {
                    @Override
                    public void sleep(Duration duration) {
                        sdkSleeps.add(duration);
                    }

                    @Override
                    public CompletableFuture<Void> sleepAsync(Duration duration) {
                        sdkSleeps.add(duration);
                        return CompletableFuture.completedFuture(null);
                    }

                    @Override
                    public void close() {
                    }
                })
                .baseUrl(provider.baseUrl()).apiKey("sk-test").maxRetries(2).build());
    }

    private long tokensLeft() {
        return Buckets.tokensLeft(memory, new BucketKey("openai", "gpt-4o"), limiter.provider("openai").limits("gpt-4o"));
    }

    @AfterEach
    void stop() {
        client.close();
        provider.close();
    }

    private static ChatCompletionCreateParams params() {
        return ChatCompletionCreateParams.builder().model("gpt-4o").addUserMessage("hi").maxCompletionTokens(40).build();
    }

    @Test
    void aCompletionSettlesToItsUsage() {
        ChatCompletion completion = client.chat().completions().create(params());
        assertThat(completion.usage().orElseThrow().totalTokens()).isEqualTo(28);
        assertThat(tokensLeft()).isEqualTo(1000 - 28);
    }

    @Test
    void eachOfTheSdksRetriesAcquiresAgainAndWaitsOutTheProvidersPause() {
        provider.script("429");
        long before = clock.millis();
        ChatCompletion completion = client.chat().completions().create(params());
        assertThat(completion.choices()).hasSize(1);
        assertThat(acquisitions.get()).isEqualTo(2);
        assertThat(provider.bodies()).hasSize(2);
        assertThat(provider.tooManyRequests()).isEqualTo(1);
        // the SDK's own sleep did not pass (its sleeper records only): the limiter held the retry for the pause
        assertThat(sdkSleeps).hasSize(1);
        assertThat(clock.millis() - before).isEqualTo(FakeProvider.SCRIPTED_RETRY_MILLIS);
    }

    @Test
    void insufficientQuotaReachesTheCallerAndPausesNothing() {
        provider.script("quota", "quota", "quota");
        RateLimitException refused = catchThrowableOfType(RateLimitException.class,
                () -> client.chat().completions().create(params()));
        assertThat(refused.getMessage()).contains("You exceeded your current quota");
        long before = clock.millis();
        client.chat().completions().create(params());
        assertThat(clock.millis()).as("no pause to wait out").isEqualTo(before);
    }

    @Test
    void aStreamSettlesWhenItEndsAndTheSdkSeesNoExtraUsageChunk() {
        List<ChatCompletionChunk> chunks = new ArrayList<>();
        try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(params())) {
            stream.stream().forEach(chunks::add);
        }
        assertThat(provider.bodies().get(0)).contains("\"include_usage\":true");
        assertThat(chunks).hasSize(3).allMatch(chunk -> chunk.choices().size() == 1 && chunk.usage().isEmpty());
        assertThat(tokensLeft()).isEqualTo(1000 - 28);
    }

    @Test
    void aStreamClosedEarlyIsSettledAtOnce() {
        try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(params())) {
            assertThat(stream.stream().findFirst()).isPresent();
        }
        assertThat(tokensLeft()).isGreaterThanOrEqualTo(1000 - 28);
    }
}
