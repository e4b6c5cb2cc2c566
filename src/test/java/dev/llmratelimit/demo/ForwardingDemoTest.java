package dev.llmratelimit.demo;

import dev.llmratelimit.outbound.FakeProvider;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/** The demo with demo.upstream.url: the filter in front, the client-side limiter behind, a provider upstream. */
class ForwardingDemoTest {

    private static final String JSON = "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"max_tokens\":20}";
    private static final String STREAM = "{\"model\":\"gpt-4o\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"max_tokens\":20}";

    @Test
    void requestsGoUpstreamThroughTheLimiterStreamsIncluded() throws Exception {
        try (FakeProvider provider = new FakeProvider(1_000_000, 1_000_000, 1.0);
             DemoFixture demo = new DemoFixture("demo.upstream.url=" + provider.baseUrl(),
                     "llm.ratelimit.outbound.upstream.rpm=6000")) {
            HttpResponse<String> answer = demo.http().chat("sk-alice", JSON);
            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(answer.body()).contains("\"content\":\"hello\"").contains("\"total_tokens\":18");

            HttpResponse<String> stream = demo.http().chat("sk-alice", STREAM);
            assertThat(stream.statusCode()).isEqualTo(200);
            assertThat(stream.body()).contains("\"content\":\"word \"").endsWith("data: [DONE]\n\n");
            assertThat(provider.served()).isEqualTo(2);
        }
    }

    @Test
    void whenTheUpstreamHasNoRoomWithinMaxWaitTheCallerGetsA429WithRetryAfter() throws Exception {
        try (FakeProvider provider = new FakeProvider(1_000_000, 1_000_000, 1.0);
             DemoFixture demo = new DemoFixture("demo.upstream.url=" + provider.baseUrl(),
                     "llm.ratelimit.outbound.upstream.rpm=2", "llm.ratelimit.outbound.upstream.max-wait=0s")) {
            assertThat(demo.http().chat("sk-alice", JSON).statusCode()).isEqualTo(200);
            HttpResponse<String> refused = demo.http().chat("sk-alice", JSON);
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.body()).contains("\"code\":\"upstream_capacity\"");
            assertThat(Long.parseLong(refused.headers().firstValue("retry-after").orElseThrow())).isBetween(6L, 8L);
            assertThat(provider.served()).isEqualTo(1);
        }
    }
}
