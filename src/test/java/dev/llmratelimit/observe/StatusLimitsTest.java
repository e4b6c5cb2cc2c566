package dev.llmratelimit.observe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.Http;
import dev.llmratelimit.testsupport.Policies;
import dev.llmratelimit.testsupport.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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
 * A model limited on requests, input and output tokens per minute and tokens per day: the status
 * page and its JSON twin show every limit with what was counted, on the memory store and on a real
 * redis-server, and the saturation is the most used of them.
 */
class StatusLimitsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static RedisServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.startNew();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    private static Map<String, String> properties(String store) {
        List<String> lines = new ArrayList<>(List.of("models.claude.rpm=20", "models.claude.itpm=1000",
                "models.claude.otpm=200", "models.claude.tpd=10000", "reservation.prod=0.5",
                "principals.alice.priority=prod", "status.path=/status", "status.public=true"));
        if (store.equals("redis")) {
            lines.add("store=redis");
            lines.add("redis.address=" + redis.address());
            lines.add("redis.key-prefix=limits-" + System.nanoTime() + ":");
        }
        return Policies.properties(lines.toArray(String[]::new));
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "redis"})
    void everyLimitOfEveryWindowIsShownWithWhatItCounted(String store) throws Exception {
        try (FilterServer server = new FilterServer(RateLimitRuntime.create(properties(store), null),
                Map.of("sk-alice", "alice", "sk-bob", "bob"), new UsageServlet(), "/v1/chat/completions")) {
            for (int i = 0; i < 3; i++) {                     // each: 10 prompt and 20 completion tokens
                assertThat(server.http().chat("sk-alice", chat("claude")).statusCode()).isEqualTo(200);
            }
            assertThat(server.http().chat("sk-bob", chat("claude")).statusCode()).isEqualTo(200);

            JsonNode model = JSON.readTree(get(server, "/status.json")).get("models").get(0);
            assertThat(model.get("name").asText()).isEqualTo("claude");
            assertThat(model.get("rpm").asLong()).isEqualTo(20);
            assertThat(model.get("tpm").asLong()).isEqualTo(-1);
            assertThat(model.get("saturation").asDouble()).isEqualTo(0.4);    // output tokens: 80 of 200
            assertThat(model.get("mode").asText()).isEqualTo("generous");
            assertThat(limits(model)).containsExactly(
                    "requests/60000 4/20 default=1/5 prod=3/10",
                    "input-tokens/60000 40/1000 default=10/250 prod=30/500",
                    "output-tokens/60000 80/200 default=20/50 prod=60/100",
                    "tokens/86400000 120/10000 default=30/2500 prod=90/5000");
            assertThat(model.get("limits").get(0).get("window_left_ms").asLong()).isBetween(1L, 60_000L);
            assertThat(model.get("limits").get(3).get("window_left_ms").asLong()).isBetween(86_000_000L, 86_400_000L);

            String html = get(server, "/status");
            assertThat(html).contains("<tr data-limit=\"output-tokens/60000\"><td data-field=\"limit-name\">output-tokens per 1m</td>"
                    + "<td class=\"num\" data-field=\"limit-used\">80 / 200<span class=\"bar\">");
            assertThat(html).contains("<td class=\"num\" data-field=\"limit-pool\" data-pool=\"prod\">90 / 5000</td>");
        }
    }

    private static List<String> limits(JsonNode model) {
        List<String> limits = new ArrayList<>();
        for (JsonNode limit : model.get("limits")) {
            StringBuilder line = new StringBuilder(limit.get("dimension").asText()).append('/')
                    .append(limit.get("window_ms").asLong()).append(' ').append(limit.get("used").asLong()).append('/')
                    .append(limit.get("limit").asLong());
            for (JsonNode pool : limit.get("pools")) {
                line.append(' ').append(pool.get("name").asText()).append('=').append(pool.get("used").asLong())
                        .append('/').append(pool.get("limit").asLong());
            }
            limits.add(line.toString());
        }
        return limits;
    }

    private static String get(FilterServer server, String path) {
        return Http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).GET().build()).body();
    }
}
