package dev.llmratelimit.outbound.okhttp;

import dev.llmratelimit.outbound.BucketKey;
import dev.llmratelimit.outbound.Buckets;
import dev.llmratelimit.outbound.ClockWaiters;
import dev.llmratelimit.outbound.FakeProvider;
import dev.llmratelimit.outbound.OutboundLimitException;
import dev.llmratelimit.outbound.OutboundLimiter;
import dev.llmratelimit.outbound.ProviderSettings;
import dev.llmratelimit.outbound.memory.MemoryOutboundStore;
import dev.llmratelimit.testsupport.MutableClock;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** An OkHttp client with the limiter's interceptor (what Spring AI 2's SDK clients get), against a local provider. */
class OutboundOkHttpInterceptorTest {

    private static final MediaType JSON = MediaType.get("application/json");

    private final MutableClock clock = new MutableClock();
    private final MemoryOutboundStore memory = new MemoryOutboundStore(clock);
    private FakeProvider provider;
    private OutboundLimiter limiter;
    private OkHttpClient client;

    @BeforeEach
    void start() throws Exception {
        provider = new FakeProvider(1_000_000, 1_000_000, 1.0);
        limiter = OutboundLimiter.builder().clock(clock).waiter(ClockWaiters.moving(clock))
                .store(ProviderSettings.StoreKind.MEMORY, memory)
                .provider("openai", p -> p.baseUrl(provider.baseUrl()).rpm(2).tpm(1000).headroom(1.0).maxWait(Duration.ZERO))
                .build();
        client = new OkHttpClient.Builder().addInterceptor(new OutboundOkHttpInterceptor(limiter)).build();
    }

    @AfterEach
    void stop() {
        client.dispatcher().executorService().shutdown();
        client.connectionPool().evictAll();
        provider.close();
    }

    private Call chat(String body) {
        return client.newCall(new Request.Builder().url(provider.baseUrl() + "/chat/completions")
                .post(RequestBody.create(body, JSON)).build());
    }

    private long tokensLeft() {
        return Buckets.tokensLeft(memory, new BucketKey("openai", "gpt-4o"), limiter.provider("openai").limits("gpt-4o"));
    }

    @Test
    void twoCallsSettleToTheirUsageTheThirdIsRefusedBeforeItIsSent() throws IOException {
        try (Response first = chat(FakeProvider.CHAT).execute()) {
            assertThat(first.code()).isEqualTo(200);
            assertThat(first.body().string()).contains("\"total_tokens\":28");
        }
        assertThat(tokensLeft()).isEqualTo(1000 - 28);              // read while the request bucket still has room
        try (Response second = chat(FakeProvider.CHAT).execute()) {
            second.body().string();
        }
        OutboundLimitException third = catchThrowableOfType(OutboundLimitException.class, () -> chat(FakeProvider.CHAT).execute());

        assertThat(third.reason()).isEqualTo(OutboundLimitException.Reason.WAIT_TOO_LONG);
        assertThat(provider.served()).isEqualTo(2);
    }

    @Test
    void aStreamIsSentWithIncludeUsageAndSettlesWhenItEnds() throws IOException {
        String streamed;
        try (Response stream = chat(FakeProvider.STREAM).execute()) {
            streamed = stream.body().string();
        }
        assertThat(provider.bodies().get(0)).contains("\"include_usage\":true");
        assertThat(streamed).doesNotContain("\"usage\":{").endsWith("data: [DONE]\n\n");
        assertThat(tokensLeft()).isEqualTo(1000 - 28);
    }

    @Test
    void anAsynchronousCallRefusedFailsItsCallbackWithTheRefusalAttached() throws Exception {
        chat(FakeProvider.CHAT).execute().close();
        chat(FakeProvider.CHAT).execute().close();
        CompletableFuture<IOException> failure = new CompletableFuture<>();
        chat(FakeProvider.CHAT).enqueue(new Callback() {
            @Override
            public void onFailure(Call call, IOException e) {
                failure.complete(e);
            }

            @Override
            public void onResponse(Call call, Response response) {
                response.close();
                failure.completeExceptionally(new AssertionError("the refused call was answered"));
            }
        });

        IOException refused = failure.get(10, TimeUnit.SECONDS);
        assertThat(refused.getSuppressed()).hasSize(1).allMatch(OutboundLimitException.class::isInstance);
        assertThat(provider.served()).isEqualTo(2);
    }
}
