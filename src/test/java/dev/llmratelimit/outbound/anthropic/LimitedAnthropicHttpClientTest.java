package dev.llmratelimit.outbound.anthropic;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.Sleeper;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import dev.llmratelimit.outbound.BucketKey;
import dev.llmratelimit.outbound.Buckets;
import dev.llmratelimit.outbound.ClockWaiters;
import dev.llmratelimit.outbound.Dimension;
import dev.llmratelimit.outbound.FakeProvider;
import dev.llmratelimit.outbound.OutboundLimitException;
import dev.llmratelimit.outbound.OutboundLimiter;
import dev.llmratelimit.outbound.ProviderSettings;
import dev.llmratelimit.outbound.memory.MemoryOutboundStore;
import dev.llmratelimit.testsupport.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The real Anthropic Java SDK, its OkHttp client given the limiter as an interceptor, against a local
 * provider's {@code /v1/messages}: 8 input tokens a call, and half of {@code max_tokens} (40) as output. The
 * limiter's buckets stand still on a test clock; the SDK's own sleeps are only recorded.
 */
class LimitedAnthropicHttpClientTest {

    private static final String MODEL = "claude-haiku-4-5";

    private final MutableClock clock = new MutableClock();
    private final MemoryOutboundStore memory = new MemoryOutboundStore(clock);
    private final List<Duration> sdkSleeps = new CopyOnWriteArrayList<>();
    private FakeProvider provider;
    private OutboundLimiter limiter;
    private AnthropicClient client;

    private void start(long otpm) throws Exception {
        provider = new FakeProvider(1_000_000, 1_000_000, 1.0);
        provider.resetsAgainst(clock);
        limiter = OutboundLimiter.builder().clock(clock).waiter(ClockWaiters.moving(clock))
                .store(ProviderSettings.StoreKind.MEMORY, memory)
                .provider("anthropic", p -> p.baseUrl(provider.baseUrl()).rpm(1000).itpm(1000).otpm(otpm).headroom(1.0)
                        .maxWait(Duration.ofSeconds(5)))
                .build();
        client = AnthropicOkHttpClient.builder()
                .addInterceptor(LimitedAnthropicHttpClient.interceptor(limiter))
                .baseUrl(provider.baseUrl().replaceFirst("/v1$", "")).apiKey("sk-ant-test").maxRetries(2)
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
                .build();
    }

    @AfterEach
    void stop() {
        client.close();
        provider.close();
    }

    private static MessageCreateParams params() {
        return MessageCreateParams.builder().model(MODEL).maxTokens(40).addUserMessage("hi").build();
    }

    private long left(Dimension dimension) {
        return Buckets.left(memory, new BucketKey("anthropic", MODEL), limiter.provider("anthropic").limits(MODEL), dimension);
    }

    @Test
    void aMessageSettlesItsInputAndOutputBuckets() throws Exception {
        start(1000);
        Message message = client.messages().create(params());
        assertThat(message.usage().outputTokens()).isEqualTo(20);
        assertThat(left(Dimension.INPUT_TOKENS)).isEqualTo(1000 - FakeProvider.PROMPT_TOKENS);
        assertThat(left(Dimension.OUTPUT_TOKENS)).isEqualTo(1000 - 20);
    }

    @Test
    void aStreamSettlesWhenItEnds() throws Exception {
        start(1000);
        List<RawMessageStreamEvent> events = new ArrayList<>();
        try (StreamResponse<RawMessageStreamEvent> stream = client.messages().createStreaming(params())) {
            stream.stream().forEach(events::add);
        }
        assertThat(events).hasSize(8);
        assertThat(left(Dimension.INPUT_TOKENS)).isEqualTo(1000 - FakeProvider.PROMPT_TOKENS);
        assertThat(left(Dimension.OUTPUT_TOKENS)).isEqualTo(1000 - 20);
    }

    @Test
    void aCallWithoutRoomForItsOutputIsRefusedBeforeItIsSent() throws Exception {
        // 50 output tokens: the first call takes 40 and gives 20 back; 30 are left for the next 40, and the
        // 10 missing come back in 12 s at 50 a minute, beyond the 5 s max-wait
        start(50);
        client.messages().create(params());
        OutboundLimitException refused = catchThrowableOfType(OutboundLimitException.class,
                () -> client.messages().create(params()));
        assertThat(refused.reason()).isEqualTo(OutboundLimitException.Reason.WAIT_TOO_LONG);
        assertThat(refused.roomIn()).isEqualTo(Duration.ofSeconds(12));
        assertThat(refused.shortOf()).isEqualTo(Dimension.OUTPUT_TOKENS);
        assertThat(provider.bodies()).hasSize(1);
    }

    @Test
    void eachOfTheSdksRetriesWaitsOutTheProvidersPause() throws Exception {
        start(1000);
        provider.script("429");
        long before = clock.millis();
        Message message = client.messages().create(params());
        assertThat(message.content()).hasSize(1);
        assertThat(provider.bodies()).hasSize(2);
        assertThat(provider.tooManyRequests()).isEqualTo(1);
        // the SDK's own sleep did not pass (its sleeper records only): the limiter held the retry for the pause
        assertThat(sdkSleeps).hasSize(1);
        assertThat(clock.millis() - before).isEqualTo(FakeProvider.SCRIPTED_RETRY_MILLIS);
    }
}
