package dev.llmratelimit.servlet;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.Http;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.Map;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code fairness=work-conserving} over real HTTP: alice ({@code prod}) alone is served the whole
 * model, bob ({@code dev}) arriving is told which priorities are active and the share he has now.
 */
class WorkConservingFilterTest {

    private FilterServer server;

    private Http start(String fairness) throws Exception {
        RateLimitRuntime runtime = RateLimitRuntime.create(properties("models.plain.rpm=10", "window=1h",
                "reservation.prod=0.5", "reservation.dev=0.5", "saturation-threshold=0.5", "fairness=" + fairness,
                "principals.alice.priority=prod", "principals.bob.priority=dev", "error-style=litellm"), null);
        server = new FilterServer(runtime, Map.of("sk-alice", "alice", "sk-bob", "bob"), new ScriptedChatServlet(),
                "/v1/chat/completions");
        return server.http();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    private static final String BODY = "{\"model\":\"plain\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";

    private static int servedUntilRefused(Http http, String key) {
        for (int served = 0; served < 100; served++) {
            if (http.chat(key, BODY).statusCode() != 200) {
                return served;
            }
        }
        return 100;
    }

    @Test
    void aLonePriorityIsServedTheWholeModelAndAnArrivingOneIsToldItsShare() throws Exception {
        Http http = start("work-conserving");
        assertThat(servedUntilRefused(http, "sk-alice")).isEqualTo(10);

        HttpResponse<String> bob = http.chat("sk-bob", BODY);
        assertThat(bob.statusCode()).isEqualTo(429);
        assertThat(bob.body()).contains("\"message\":\"Model capacity reached for plain. Priority: dev,"
                + " active priorities: dev, prod, share now: 50.0%, Rate limit type: requests, Model TPM: not configured,"
                + " Model RPM: 10, Remaining: 0\"");
        assertThat(Http.header(bob, "x-ratelimit-limit-requests")).isEqualTo("10");
        assertThat(Http.header(bob, "x-ratelimit-remaining-requests")).isEqualTo("0");
    }

    @Test
    void underSaturationFairnessTheLonePriorityIsHeldToItsShare() throws Exception {
        Http http = start("saturation");
        assertThat(servedUntilRefused(http, "sk-alice")).isEqualTo(5);

        HttpResponse<String> alice = http.chat("sk-alice", BODY);
        assertThat(alice.body()).contains("\"message\":\"Priority-based rate limit exceeded. Model: plain, Priority: prod,"
                + " Rate limit type: requests, Model TPM: not configured, Model RPM: 10, Remaining: 0,"
                + " Model saturation: 50.0%\"");
        assertThat(Http.header(alice, "x-ratelimit-limit-requests")).isEqualTo("5");
    }
}
