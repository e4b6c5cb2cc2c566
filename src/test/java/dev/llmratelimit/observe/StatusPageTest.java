package dev.llmratelimit.observe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.Http;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static dev.llmratelimit.testsupport.FilterServer.chat;
import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/** The status page's JSON twin over HTTP, field by field, after a known load; the page's headers. */
class StatusPageTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, String> PROPERTIES = properties(
            "models.gpt-4o.rpm=10", "models.gpt-4o.tpm=1000", "models.small.tpm=500",
            "reservation.prod=0.5", "principals.alice.priority=prod",
            "status.path=/llm-ratelimit/status", "status.public=true", "status.refresh=2s");
    private static Instant started;
    private static FilterServer server;

    @BeforeAll
    static void start() throws Exception {
        started = Instant.now();
        server = new FilterServer(RateLimitRuntime.create(PROPERTIES, null), Map.of("sk-alice", "alice", "sk-bob", "bob"),
                new UsageServlet(), "/v1/chat/completions");
        for (int i = 0; i < 3; i++) {
            assertThat(server.http().chat("sk-alice", chat("gpt-4o")).statusCode()).isEqualTo(200);
        }
        for (int i = 0; i < 2; i++) {
            assertThat(server.http().chat("sk-bob", chat("gpt-4o")).statusCode()).isEqualTo(200);
        }
        // Strict now (5 of 10): bob's default pool holds 2 of its 2.
        assertThat(server.http().chat("sk-bob", chat("gpt-4o")).statusCode()).isEqualTo(429);
        assertThat(server.http().chat("sk-bob", chat("not-configured")).statusCode()).isEqualTo(200);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static HttpResponse<String> get(int port, String path) {
        return Http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET().build());
    }

    @Test
    void theJsonTwinShowsEveryFigure() throws Exception {
        HttpResponse<String> response = get(server.port(), "/llm-ratelimit/status.json");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(Http.header(response, "Content-Type")).startsWith("application/json");
        assertThat(Http.header(response, "Cache-Control")).isEqualTo("no-store");
        JsonNode status = JSON.readTree(response.body());

        assertThat(Instant.parse(status.get("generated_at").asText())).isBetween(started, Instant.now());
        assertThat(status.get("enforcement").asText()).isEqualTo("enforce");
        assertThat(status.get("window").get("length_ms").asLong()).isEqualTo(60_000);
        assertThat(status.get("window").get("mode").asText()).isEqualTo("fixed");

        JsonNode configuration = status.get("configuration");
        assertThat(configuration.get("origin").asText()).isEqualTo("properties given in code");
        assertThat(configuration.get("fingerprint").asText()).isEqualTo(ConfigurationStatus.fingerprint(PROPERTIES))
                .hasSize(12);
        assertThat(Instant.parse(configuration.get("loaded_at").asText())).isBetween(started, Instant.now());
        assertThat(configuration.get("last_reload").isNull()).isTrue();

        JsonNode store = status.get("store");
        assertThat(store.get("kind").asText()).isEqualTo("memory");
        assertThat(store.get("healthy").asBoolean()).isTrue();
        assertThat(store.get("circuits").size()).isZero();
        assertThat(store.get("failures").toString())
                .isEqualTo("{\"decide\":0,\"record\":0,\"snapshot\":0}");
        assertThat(store.get("last_failure").isNull()).isTrue();
        assertThat(store.get("last_failed_operation").isNull()).isTrue();

        JsonNode models = status.get("models");
        assertThat(models.size()).isEqualTo(2);
        JsonNode gpt = models.get(0);
        assertThat(gpt.get("name").asText()).isEqualTo("gpt-4o");
        assertThat(gpt.get("rpm").asLong()).isEqualTo(10);
        assertThat(gpt.get("tpm").asLong()).isEqualTo(1000);
        assertThat(gpt.get("saturation_threshold").asDouble()).isEqualTo(0.5);
        assertThat(gpt.get("pools_enforced").asBoolean()).isTrue();
        assertThat(gpt.get("available").asBoolean()).isTrue();
        assertThat(gpt.get("saturation").asDouble()).isEqualTo(0.5);   // max(5 / 10, 150 / 1000)
        assertThat(gpt.get("mode").asText()).isEqualTo("strict");
        assertThat(gpt.get("window_left_ms").asLong()).isBetween(50_000L, 60_000L);
        assertThat(gpt.get("requests").asLong()).isEqualTo(5);
        assertThat(gpt.get("tokens").asLong()).isEqualTo(150);
        assertThat(pools(gpt)).containsExactly(
                "default share=0.25 requests=2/2 tokens=60/250",
                "prod share=0.5 requests=3/5 tokens=90/500");

        JsonNode small = models.get(1);
        assertThat(small.get("name").asText()).isEqualTo("small");
        assertThat(small.get("rpm").asLong()).isEqualTo(-1);
        assertThat(small.get("tpm").asLong()).isEqualTo(500);
        assertThat(small.get("saturation").asDouble()).isEqualTo(0.0);
        assertThat(small.get("mode").asText()).isEqualTo("generous");
        assertThat(small.get("window_left_ms").asLong()).isZero();      // never used: no window
        assertThat(small.get("requests").asLong()).isEqualTo(-1);
        assertThat(small.get("tokens").asLong()).isZero();
        assertThat(pools(small)).containsExactly(
                "default share=0.25 requests=-1/-1 tokens=0/125",
                "prod share=0.5 requests=-1/-1 tokens=0/250");

        assertThat(status.get("budgets").size()).isZero();
    }

    @Test
    void thePageIsSelfContainedHtml() {
        HttpResponse<String> response = get(server.port(), "/llm-ratelimit/status");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(Http.header(response, "Content-Type")).isEqualTo("text/html;charset=UTF-8");
        assertThat(Http.header(response, "Content-Security-Policy")).startsWith("default-src 'none';");
        assertThat(response.body()).contains("<section class=\"card model\" data-model=\"gpt-4o\">",
                "<noscript><meta http-equiv=\"refresh\" content=\"2\"></noscript>", "data-refresh-ms=\"2000\"");
        assertThat(response.body()).doesNotContain("http://", "https://", "not-configured");
    }

    @Test
    void onlyGetOnTheTwoPathsIsServed() throws Exception {
        assertThat(server.http().post("/llm-ratelimit/status.json", null, "{}").statusCode()).isNotEqualTo(200);
        assertThat(get(server.port(), "/llm-ratelimit/status/").statusCode()).isEqualTo(404);
        assertThat(get(server.port(), "/llm-ratelimit/statusjson").statusCode()).isEqualTo(404);
    }

    @Test
    void thereIsNoStatusPageUnlessAPathIsConfigured() throws Exception {
        try (FilterServer plain = new FilterServer(RateLimitRuntime.create(properties("models.m.rpm=5"), null),
                Map.of(), new UsageServlet(), "/v1/chat/completions")) {
            assertThat(get(plain.port(), "/llm-ratelimit/status.json").statusCode()).isEqualTo(404);
            assertThat(get(plain.port(), "/llm-ratelimit/status").statusCode()).isEqualTo(404);
        }
    }

    private static List<String> pools(JsonNode model) {
        return java.util.stream.StreamSupport.stream(model.get("pools").spliterator(), false)
                .map(pool -> pool.get("name").asText() + " share=" + pool.get("share").asDouble()
                        + " requests=" + pool.get("requests").asLong() + "/" + pool.get("request_limit").asLong()
                        + " tokens=" + pool.get("tokens").asLong() + "/" + pool.get("token_limit").asLong())
                .toList();
    }
}
