package dev.llmratelimit.outbound.http;

import dev.llmratelimit.outbound.BucketKey;
import dev.llmratelimit.outbound.Buckets;
import dev.llmratelimit.outbound.FakeProvider;
import dev.llmratelimit.outbound.OutboundLimitException;
import dev.llmratelimit.outbound.OutboundLimiter;
import dev.llmratelimit.outbound.ProviderSettings;
import dev.llmratelimit.outbound.memory.MemoryOutboundStore;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.testsupport.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The java.net.http wrapper against a local provider; the buckets on a clock that stands still. */
class LimitedHttpClientTest {

    private static final String CHAT = FakeProvider.CHAT;
    private static final String STREAM = FakeProvider.STREAM;

    private final MutableClock clock = new MutableClock();
    private final MemoryOutboundStore store = new MemoryOutboundStore(clock);
    private FakeProvider provider;
    private OutboundLimiter limiter;
    private HttpClient http;

    private void start(String baseUrl) {
        limiter = OutboundLimiter.builder().clock(clock).store(ProviderSettings.StoreKind.MEMORY, store)
                .provider("openai", p -> p.baseUrl(baseUrl).rpm(1000).tpm(1000).headroom(1.0).maxWait(Duration.ZERO))
                .build();
        http = LimitedHttpClient.wrap(HttpClient.newHttpClient(), limiter);
    }

    @AfterEach
    void stop() {
        if (provider != null) {
            provider.close();
        }
    }

    private HttpRequest post(String body) {
        return post(provider.baseUrl(), body);
    }

    private static HttpRequest post(String base, String body) {
        return HttpRequest.newBuilder(URI.create(base + "/chat/completions")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    private long tokensLeft() {
        return Buckets.tokensLeft(store, new BucketKey("openai", "gpt-4o"), limiter.provider("openai").limits("gpt-4o"));
    }

    @Test
    void aCallSettlesToItsRealUsage() throws Exception {
        provider = new FakeProvider(1_000_000, 1_000_000, 1.0);
        start(provider.baseUrl());
        HttpResponse<String> response = http.send(post(CHAT), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"content\":\"hello\"");
        // 8 prompt + 20 completion tokens used; the estimate (prompt from the tokenizer + 40) went back
        assertThat(tokensLeft()).isEqualTo(1000 - 28);
    }

    @Test
    void asynchronousCallsSettleToo() throws Exception {
        provider = new FakeProvider(1_000_000, 1_000_000, 1.0);
        start(provider.baseUrl());
        HttpResponse<String> response = http.sendAsync(post(CHAT), HttpResponse.BodyHandlers.ofString()).join();
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(tokensLeft()).isEqualTo(1000 - 28);
    }

    @Test
    void aStreamAsksForUsageSettlesToItAndTheCallerSeesTheStreamItAskedFor() throws Exception {
        provider = new FakeProvider(1_000_000, 1_000_000, 1.0);
        start(provider.baseUrl());
        HttpResponse<String> response = http.send(post(STREAM), HttpResponse.BodyHandlers.ofString());
        assertThat(provider.bodies().get(0)).contains("\"stream_options\":{\"include_usage\":true}");
        assertThat(response.body()).contains("word ").contains("data: [DONE]").doesNotContain("usage");
        assertThat(tokensLeft()).isEqualTo(1000 - 28);
    }

    @Test
    void aStreamTheCallerAbandonsCountsWhatWasStreamed() throws Exception {
        provider = new FakeProvider(1_000_000, 1_000_000, 1.0);
        start(provider.baseUrl());
        HttpResponse<InputStream> response = http.send(post(STREAM), HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream body = response.body()) {
            assertThat(body.read(new byte[10])).isPositive();
        }
        // closing early cancels the subscription: settled at once, either to the usage it had seen or to
        // prompt + what was streamed; never left at the 40-token estimate
        long left = tokensLeft();
        assertThat(left).isGreaterThan(1000 - 40 - 10);
    }

    @Test
    void aCallThatCouldNeverFitIsRefusedBeforeAnythingIsSent() throws Exception {
        provider = new FakeProvider(1_000_000, 1_000_000, 1.0);
        start(provider.baseUrl());
        String huge = CHAT.replace("\"max_tokens\":40", "\"max_tokens\":5000");
        assertThatThrownBy(() -> http.send(post(huge), HttpResponse.BodyHandlers.ofString()))
                .isInstanceOfSatisfying(OutboundLimitException.class,
                        e -> assertThat(e.reason()).isEqualTo(OutboundLimitException.Reason.NEVER_FITS));
        assertThatThrownBy(() -> http.sendAsync(post(huge), HttpResponse.BodyHandlers.ofString()).join())
                .isInstanceOf(CompletionException.class).hasCauseInstanceOf(OutboundLimitException.class);
        assertThat(provider.bodies()).isEmpty();
    }

    @Test
    void aConnectionNeverMadeGivesEverythingBack() {
        start("http://127.0.0.1:" + RedisServer.freePort() + "/v1");
        String base = limiter.provider("openai").baseUrl();
        assertThatThrownBy(() -> http.send(post(base, CHAT), HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(ConnectException.class);
        assertThat(tokensLeft()).isEqualTo(1000);
    }

    @Test
    void callsElsewhereAndBodiesWithoutAModelPassUntouched() throws Exception {
        provider = new FakeProvider(1_000_000, 1_000_000, 1.0);
        start("https://api.example.invalid/v1");
        HttpResponse<String> response = http.send(post(CHAT), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(provider.bodies()).containsExactly(CHAT);
        assertThat(tokensLeft()).isEqualTo(1000);
    }

    @Test
    void theProvidersRemainingFiguresLowerTheBucketsNeverRaiseThem() throws Exception {
        provider = new FakeProvider(1000, 1_000_000, 1.0);
        start(provider.baseUrl());
        provider.spendElsewhere(995);
        assertThat(http.send(post(CHAT), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        // the provider has 4 requests left (another client spent 995): so have we, not 999
        for (int i = 0; i < 4; i++) {
            assertThat(http.send(post(CHAT), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        }
        assertThatThrownBy(() -> http.send(post(CHAT), HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(OutboundLimitException.class);
        assertThat(provider.tooManyRequests()).isZero();
        assertThat(provider.served()).isEqualTo(5);
    }

    @Test
    void a429PausesTheBucketsForItsRetryAfter() throws IOException, InterruptedException {
        provider = new FakeProvider(1_000_000, 1_000_000, 1.0);
        start(provider.baseUrl());
        provider.script("429");
        HttpResponse<String> response = http.send(post(CHAT), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(429);
        assertThatThrownBy(() -> http.send(post(CHAT), HttpResponse.BodyHandlers.ofString()))
                .isInstanceOfSatisfying(OutboundLimitException.class, e -> {
                    assertThat(e.reason()).isEqualTo(OutboundLimitException.Reason.WAIT_TOO_LONG);
                    assertThat(e.roomIn()).isEqualTo(Duration.ofMillis(FakeProvider.SCRIPTED_RETRY_MILLIS));
                });
        clock.advance(Duration.ofMillis(FakeProvider.SCRIPTED_RETRY_MILLIS));
        assertThat(http.send(post(CHAT), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        assertThat(provider.bodies()).hasSize(2);
    }

    @Test
    void insufficientQuotaDoesNotPauseAndReachesTheCaller() throws IOException, InterruptedException {
        provider = new FakeProvider(1_000_000, 1_000_000, 1.0);
        start(provider.baseUrl());
        provider.script("quota");
        HttpResponse<String> response = http.send(post(CHAT), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(429);
        assertThat(response.body()).contains("insufficient_quota");
        assertThat(http.send(post(CHAT), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    }
}
