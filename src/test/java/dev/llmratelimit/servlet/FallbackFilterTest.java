package dev.llmratelimit.servlet;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.Http;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/** Fallback models through the filter over HTTP (docs/instead-of-429.md): exact counts along the chain. */
class FallbackFilterTest {

    private static final String BODY = "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],  \"model\" : \"a\",\"n\":1}";

    private final ModelEchoServlet app = new ModelEchoServlet();
    private FilterServer server;

    private Http start(String... lines) throws Exception {
        RateLimitRuntime runtime = RateLimitRuntime.create(properties(lines), null);
        server = new FilterServer(runtime, Map.of("sk-alice", "alice", "sk-bob", "bob"), app, "/v1/chat/completions");
        return server.http();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    @Test
    void theNextModelThatAdmitsServesTheRequest() throws Exception {
        Http http = start("models.a.rpm=2", "models.b.rpm=2", "models.c.rpm=1", "models.a.fallbacks=b,c");
        List<HttpResponse<String>> answers = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            answers.add(http.chat(null, BODY));
        }
        assertThat(answers).extracting(HttpResponse::statusCode).containsExactly(200, 200, 200, 200, 200, 429);
        assertThat(answers).extracting(r -> Http.header(r, "x-ratelimit-fallback-from"))
                .containsExactly(null, null, "a", "a", "a", null);
        assertThat(answers).extracting(r -> Http.header(r, "x-ratelimit-remaining-requests"))
                .containsExactly("1", "0", "1", "0", "0", "0");
        assertThat(answers.get(2).body()).contains("\"model\":\"b\"");
        assertThat(answers.get(4).body()).contains("\"model\":\"c\"");
        assertThat(answers.get(5).body()).isEqualTo("{\"error\":{\"message\":\"Model capacity reached for a. "
                + "Priority: default, Rate limit type: requests, Model TPM: not configured, Model RPM: 2, Remaining: 0\","
                + "\"type\":\"throttling_error\",\"param\":null,\"code\":\"429\"}}");
        // Only the model changed, byte for byte: spacing and field order are the client's.
        assertThat(app.received).containsExactly(BODY, BODY, BODY.replace("\"a\"", "\"b\""),
                BODY.replace("\"a\"", "\"b\""), BODY.replace("\"a\"", "\"c\""));
        // The refusals on the way counted nothing: b and c hold exactly what they served.
        assertThat(http.chat(null, BODY.replace("\"a\"", "\"b\"")).statusCode()).isEqualTo(429);
        assertThat(http.chat(null, BODY.replace("\"a\"", "\"c\"")).statusCode()).isEqualTo(429);
        assertThat(app.received).hasSize(5);
    }

    @Test
    void aPriorityHasItsOwnChain() throws Exception {
        Http http = start("models.a.rpm=1", "models.b.rpm=5", "models.c.rpm=5", "models.a.fallbacks=b",
                "models.a.fallbacks.prod=c", "reservation.prod=0.5", "principals.alice.priority=prod");
        assertThat(http.chat("sk-bob", BODY).statusCode()).isEqualTo(200);
        HttpResponse<String> prod = http.chat("sk-alice", BODY);
        HttpResponse<String> other = http.chat("sk-bob", BODY);
        assertThat(prod.body()).contains("\"model\":\"c\"");
        assertThat(other.body()).contains("\"model\":\"b\"");
        assertThat(Http.header(prod, "x-ratelimit-priority")).isEqualTo("prod");
    }

    @Test
    void callerLimitsCountOnceForTheModelServed() throws Exception {
        Http http = start("models.a.rpm=1", "models.b.rpm=10", "models.a.fallbacks=b",
                "principals.alice.rpm-limit=3");
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            statuses.add(http.chat("sk-alice", BODY).statusCode());
        }
        assertThat(statuses).containsExactly(200, 200, 200, 429);
        assertThat(app.received).hasSize(3);
    }

    /**
     * A fallback without a price where budgets apply is refused before any counter is asked; the
     * request then gets the first model's refusal, never a free call.
     */
    @Test
    void anUnpricedFallbackIsNeverAWayAroundTheCallersLimitOrBudget() throws Exception {
        Http http = start("models.gpt-4o.rpm=5", "models.local-llama.rpm=1000", "models.gpt-4o.fallbacks=local-llama",
                "prices.gpt-4o.input=1", "prices.gpt-4o.output=1", "principals.bob.budget=100",
                "principals.bob.rpm-limit=2", "principals.alice.budget=0");
        String body = FilterServer.chat("gpt-4o");
        List<HttpResponse<String>> bob = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            bob.add(http.chat("sk-bob", body));
        }
        assertThat(bob).extracting(HttpResponse::statusCode).containsExactly(200, 200, 429, 429, 429);
        assertThat(bob).extracting(r -> Http.header(r, "x-ratelimit-remaining-requests"))
                .containsExactly("4", "3", null, null, null);
        assertThat(bob.subList(2, 5)).allSatisfy(refused -> {
            assertThat(refused.body()).contains("\"code\":\"429\"");
            assertThat(Http.header(refused, "retry-after")).isNotNull();
        });
        // alice's budget is spent: refused on money by gpt-4o, and the unpriced fallback is no way out
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> refused = http.chat("sk-alice", body);
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.body()).contains("\"type\":\"budget_exceeded\"");
        }
        assertThat(app.received).hasSize(2);
        assertThat(app.received).allMatch(b -> b.contains("\"gpt-4o\""));
    }

    @Test
    void shadowModeNeverFallsBack() throws Exception {
        Http http = start("models.a.rpm=1", "models.b.rpm=10", "models.a.fallbacks=b", "mode=shadow");
        http.chat(null, BODY);
        HttpResponse<String> second = http.chat(null, BODY);
        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(Http.header(second, "x-ratelimit-fallback-from")).isNull();
        assertThat(app.received).containsExactly(BODY, BODY);
    }
}
