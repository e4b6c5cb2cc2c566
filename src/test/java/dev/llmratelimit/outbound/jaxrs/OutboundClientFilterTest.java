package dev.llmratelimit.outbound.jaxrs;

import dev.llmratelimit.outbound.BucketKey;
import dev.llmratelimit.outbound.Buckets;
import dev.llmratelimit.outbound.FakeProvider;
import dev.llmratelimit.outbound.OutboundLimitException;
import dev.llmratelimit.outbound.OutboundLimiter;
import dev.llmratelimit.outbound.ProviderSettings;
import dev.llmratelimit.outbound.memory.MemoryOutboundStore;
import dev.llmratelimit.testsupport.MutableClock;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.client.Client;
import jakarta.ws.rs.client.ClientBuilder;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.core.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The JAX-RS client filter on RESTEasy's client, against a local provider. */
class OutboundClientFilterTest {

    private static final String CHAT = FakeProvider.CHAT;
    private static final String STREAM = FakeProvider.STREAM;

    private final MutableClock clock = new MutableClock();
    private final MemoryOutboundStore store = new MemoryOutboundStore(clock);
    private FakeProvider provider;
    private OutboundLimiter limiter;
    private Client client;

    @BeforeEach
    void start() throws Exception {
        provider = new FakeProvider(1_000_000, 1_000_000, 1.0);
        limiter = OutboundLimiter.builder().clock(clock).store(ProviderSettings.StoreKind.MEMORY, store)
                .provider("openai", p -> p.baseUrl(provider.baseUrl()).rpm(1000).tpm(1000).headroom(1.0)
                        .maxWait(Duration.ZERO))
                .build();
        client = ClientBuilder.newClient().register(new OutboundClientFilter(limiter));
    }

    @AfterEach
    void stop() {
        client.close();
        provider.close();
    }

    private long tokensLeft() {
        return Buckets.tokensLeft(store, new BucketKey("openai", "gpt-4o"), limiter.provider("openai").limits("gpt-4o"));
    }

    private Response post(String body) {
        return client.target(provider.baseUrl() + "/chat/completions").request()
                .post(Entity.entity(body, "application/json"));
    }

    @Test
    void aCallSettlesToItsUsageWhenTheEntityIsRead() {
        try (Response response = post(CHAT)) {
            assertThat(response.getStatus()).isEqualTo(200);
            assertThat(response.readEntity(String.class)).contains("\"total_tokens\":28");
        }
        assertThat(tokensLeft()).isEqualTo(1000 - 28);
    }

    @Test
    void aStreamAsksForUsageAndTheCallerSeesTheStreamItAskedFor() {
        String body;
        try (Response response = post(STREAM)) {
            body = response.readEntity(String.class);
        }
        assertThat(provider.bodies().get(0)).contains("\"include_usage\":true");
        assertThat(body).contains("data: [DONE]").doesNotContain("usage");
        assertThat(tokensLeft()).isEqualTo(1000 - 28);
    }

    @Test
    void aRefusedCallIsNeverSent() {
        String huge = CHAT.replace("\"max_tokens\":40", "\"max_tokens\":5000");
        assertThatThrownBy(() -> post(huge)).isInstanceOf(ProcessingException.class)
                .hasRootCauseInstanceOf(OutboundLimitException.class);
        assertThat(provider.bodies()).isEmpty();
    }

    @Test
    void a429PausesTheBuckets() {
        provider.script("429");
        try (Response response = post(CHAT)) {
            assertThat(response.getStatus()).isEqualTo(429);
        }
        assertThatThrownBy(() -> post(CHAT)).hasRootCauseInstanceOf(OutboundLimitException.class);
        clock.advance(Duration.ofMillis(FakeProvider.SCRIPTED_RETRY_MILLIS));
        try (Response response = post(CHAT)) {
            assertThat(response.getStatus()).isEqualTo(200);
        }
    }
}
