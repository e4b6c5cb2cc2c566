package dev.llmratelimit.servlet;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.Http;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.testsupport.RedisTestSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpResponse;
import java.util.Map;

import static dev.llmratelimit.testsupport.FilterServer.chat;
import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances on one real Redis: a request waiting on one instance sees the capacity the other
 * left through the store (the room decides its waiters again at the window's end and at least every
 * poll interval), and the two together never serve more than the window's capacity.
 */
class WaitingAcrossInstancesTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static RateLimitRuntime instance() {
        Map<String, String> properties = properties("models.m.rpm=2", "window=2s", "max-wait=6s", "store=redis");
        properties.putAll(RedisTestSettings.properties(REDIS.server().address()));
        return RateLimitRuntime.create(properties, null);
    }

    @Test
    void aWaiterOnOneInstanceIsServedByTheNextWindowOfTheSharedCounters() throws Exception {
        ModelEchoServlet appA = new ModelEchoServlet();
        ModelEchoServlet appB = new ModelEchoServlet();
        try (FilterServer a = new FilterServer(instance(), Map.of(), appA, "/v1/chat/completions");
             FilterServer b = new FilterServer(instance(), Map.of(), appB, "/v1/chat/completions")) {
            assertThat(a.http().chat(null, chat("m")).statusCode()).isEqualTo(200);
            assertThat(a.http().chat(null, chat("m")).statusCode()).isEqualTo(200);
            HttpResponse<String> waited = b.http().chat(null, chat("m"));
            assertThat(waited.statusCode()).isEqualTo(200);
            assertThat(Long.parseLong(Http.header(waited, "x-ratelimit-waited-ms"))).isPositive();
            assertThat(Http.header(waited, "x-ratelimit-remaining-requests")).isEqualTo("1");
            assertThat(appA.received.size() + appB.received.size()).isEqualTo(3);
        }
    }
}
