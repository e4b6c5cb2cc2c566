package dev.llmratelimit.outbound.springai;

import dev.llmratelimit.outbound.BucketKey;
import dev.llmratelimit.outbound.Buckets;
import dev.llmratelimit.outbound.FakeProvider;
import dev.llmratelimit.outbound.OutboundLimiter;
import dev.llmratelimit.outbound.Permit;
import dev.llmratelimit.outbound.Tokens;
import dev.llmratelimit.outbound.ProviderSettings;
import dev.llmratelimit.outbound.memory.MemoryOutboundStore;
import dev.llmratelimit.testsupport.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.Disposable;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The WebClient filter on a plain WebClient against a local provider; the buckets on a clock that stands still. */
class OutboundWebClientFilterTest {

    private final MutableClock clock = new MutableClock();
    private final MemoryOutboundStore store = new MemoryOutboundStore(clock);
    private FakeProvider provider;
    private OutboundLimiter limiter;
    private WebClient web;

    /** Buckets of {@code requests} (refilled at one a second) and 1000 tokens. */
    private void start(int requests) throws Exception {
        provider = new FakeProvider(1_000_000, 1_000_000, 1.0);
        limiter = OutboundLimiter.builder().clock(clock).store(ProviderSettings.StoreKind.MEMORY, store)
                .provider("openai", p -> p.baseUrl(provider.baseUrl()).rpm(60).tpm(60_000 / requests).headroom(1.0)
                        .burst(requests / 60.0).maxWait(Duration.ofSeconds(30)))
                .build();
        web = WebClient.builder().baseUrl(provider.baseUrl()).filter(new OutboundWebClientFilter(limiter)).build();
    }

    @AfterEach
    void stop() {
        if (provider != null) {
            provider.close();
        }
    }

    private String post(String body) {
        return web.post().uri("/chat/completions").contentType(MediaType.APPLICATION_JSON).bodyValue(body)
                .retrieve().bodyToMono(String.class).block(Duration.ofSeconds(10));
    }

    @Test
    void aStreamAsksForUsageSettlesToItAndTheCallerSeesTheStreamItAskedFor() throws Exception {
        start(60);
        String stream = post(FakeProvider.STREAM);
        assertThat(provider.bodies()).singleElement().asString().contains("\"stream_options\":{\"include_usage\":true}");
        assertThat(stream).contains("word ").doesNotContain("usage");
        assertThat(Buckets.tokensLeft(store, new BucketKey("openai", "gpt-4o"), limiter.provider("openai").limits("gpt-4o")))
                .isEqualTo(1000 - 28);
    }

    @Test
    void aCallCancelledWhileItWaitsGivesItsPlaceBackAndIsNeverSent() throws Exception {
        start(1);
        assertThat(post(FakeProvider.CHAT)).contains("\"content\":\"hello\"");
        // the bucket's one request is taken: the next call waits a second of the clock, which stands still
        Disposable waiting = web.post().uri("/chat/completions").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(FakeProvider.CHAT).retrieve().bodyToMono(String.class).subscribe();
        Thread.sleep(300);
        waiting.dispose();
        // its place is given back when its turn comes (a second of real time: the waiter sleeps)
        Thread.sleep(1_500);
        // had it kept its place, the next caller would queue behind it, two seconds out
        Permit next = limiter.acquireAsync("openai", "gpt-4o", new Tokens(10, 0)).join();
        assertThat(next.waitedMillis()).isEqualTo(1000);
        assertThat(provider.bodies()).hasSize(1);
    }
}
