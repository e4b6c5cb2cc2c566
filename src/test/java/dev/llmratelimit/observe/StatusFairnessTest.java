package dev.llmratelimit.observe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.Http;
import dev.llmratelimit.testsupport.Policies;
import dev.llmratelimit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.URI;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.llmratelimit.testsupport.FilterServer.chat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Under work-conserving fairness the status page and its JSON show which pools are active and the
 * share and limits each has now, on the memory store and on a real redis-server.
 */
class StatusFairnessTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final ObjectMapper JSON = new ObjectMapper();

    private static Map<String, String> properties(String store) {
        List<String> lines = new ArrayList<>(List.of("models.m.rpm=20", "reservation.prod=0.5", "reservation.dev=0.25",
                "default-priority=0.25", "fairness=work-conserving", "principals.alice.priority=prod",
                "status.path=/status", "status.public=true"));
        if (store.equals("redis")) {
            lines.add("store=redis");
            lines.add("redis.address=" + REDIS.server().address());
            lines.add("redis.key-prefix=fair-" + System.nanoTime() + ":");
        }
        return Policies.properties(lines.toArray(String[]::new));
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "redis"})
    void theActivePoolsAndTheirSharesNowAreShown(String store) throws Exception {
        try (FilterServer server = new FilterServer(RateLimitRuntime.create(properties(store), null),
                Map.of("sk-alice", "alice"), new UsageServlet(), "/v1/chat/completions")) {
            for (int i = 0; i < 3; i++) {
                assertThat(server.http().chat("sk-alice", chat("m")).statusCode()).isEqualTo(200);
            }

            JsonNode model = JSON.readTree(get(server, "/status.json")).get("models").get(0);
            assertThat(model.get("fairness").asText()).isEqualTo("work-conserving");
            assertThat(pools(model)).containsExactly(
                    "default active=false share=0.25 now=0.3333333333333333 requests=0/6",
                    "dev active=false share=0.25 now=0.3333333333333333 requests=0/6",
                    "prod active=true share=0.5 now=1.0 requests=3/20");

            String html = get(server, "/status");
            assertThat(html).contains("<dd data-field=\"fairness\">work-conserving</dd>");
            assertThat(html).contains("<td data-field=\"pool\">prod<span class=\"badge\" data-field=\"pool-active\">active</span>"
                    + "</td><td class=\"num\" data-field=\"share\">50.0 %<span class=\"sub\" data-field=\"share-now\"> now 100.0 %</span>");
        }
    }

    private static List<String> pools(JsonNode model) {
        List<String> pools = new ArrayList<>();
        for (JsonNode pool : model.get("pools")) {
            pools.add(pool.get("name").asText() + " active=" + pool.get("active").asBoolean() + " share="
                    + pool.get("share").asDouble() + " now=" + pool.get("share_now").asDouble() + " requests="
                    + pool.get("requests").asLong() + "/" + pool.get("request_limit").asLong());
        }
        return pools;
    }

    private static String get(FilterServer server, String path) {
        return Http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).GET().build()).body();
    }
}
