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
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.net.URI;
import java.net.http.HttpRequest;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.llmratelimit.testsupport.FilterServer.chat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances on one real redis-server: each one's status page shows the shared counters, read
 * with one script call per model; with Redis gone, the page shows the open circuit and the failures.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisStatusTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, String> KEYS = Map.of("sk-alice", "alice", "sk-bob", "bob");
    private static RedisServer redis;
    private static FilterServer first;
    private static FilterServer second;

    @BeforeAll
    static void start() throws Exception {
        redis = RedisServer.startNew();
        first = new FilterServer(RateLimitRuntime.create(properties(), null), KEYS, new UsageServlet(), "/v1/chat/completions");
        second = new FilterServer(RateLimitRuntime.create(properties(), null), KEYS, new UsageServlet(), "/v1/chat/completions");
    }

    private static Map<String, String> properties() {
        return new HashMap<>(Policies.properties(
                "models.gpt-4o.rpm=100", "models.gpt-4o.tpm=100000", "models.small.rpm=10",
                "reservation.prod=0.5", "principals.alice.priority=prod", "store=redis",
                "redis.address=" + redis.address(), "redis.timeout=1s", "store-failure-threshold=3",
                "store-backoff=60s", "status.path=/status", "status.public=true"));
    }

    @AfterAll
    static void stop() throws Exception {
        first.close();
        second.close();
        redis.close();
    }

    private static JsonNode status(FilterServer server) throws Exception {
        return JSON.readTree(Http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/status.json"))
                .GET().build()).body());
    }

    @Test
    @Order(1)
    void eachInstanceShowsTheSharedCountersWithOneScriptCallPerModel() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(first.http().chat("sk-alice", chat("gpt-4o")).statusCode()).isEqualTo(200);
        }
        assertThat(first.http().chat("sk-bob", chat("gpt-4o")).statusCode()).isEqualTo(200);
        assertThat(second.http().chat("sk-alice", chat("gpt-4o")).statusCode()).isEqualTo(200);
        assertThat(second.http().chat("sk-bob", chat("small")).statusCode()).isEqualTo(200);

        for (FilterServer instance : new FilterServer[] {first, second}) {
            JsonNode status = status(instance);
            assertThat(status.get("store").get("kind").asText()).isEqualTo("redis");
            assertThat(status.get("store").get("healthy").asBoolean()).isTrue();
            assertThat(status.get("store").get("circuits").get("redis").asText()).isEqualTo("closed");
            JsonNode gpt = status.get("models").get(0);
            assertThat(gpt.get("name").asText()).isEqualTo("gpt-4o");
            assertThat(gpt.get("requests").asLong()).isEqualTo(5);
            assertThat(gpt.get("tokens").asLong()).isEqualTo(150);
            assertThat(gpt.get("pools").get(0).get("requests").asLong()).isEqualTo(1);   // default: bob
            assertThat(gpt.get("pools").get(1).get("requests").asLong()).isEqualTo(4);   // prod: alice
            assertThat(gpt.get("pools").get(1).get("tokens").asLong()).isEqualTo(120);
            assertThat(gpt.get("window_left_ms").asLong()).isBetween(1L, 60_000L);
            JsonNode small = status.get("models").get(1);
            assertThat(small.get("requests").asLong()).isEqualTo(1);
            assertThat(small.get("saturation").asDouble()).isEqualTo(0.1);
        }

        long before = evalShaCalls();
        status(second);
        assertThat(evalShaCalls() - before).isEqualTo(2);     // two models, one snapshot script each
    }

    @Test
    @Order(2)
    void withRedisGoneThePageShowsTheOpenCircuitAndTheFailures() throws Exception {
        redis.stop();
        for (int i = 0; i < 4; i++) {                          // fail-open: 3 time out, then the circuit skips
            assertThat(first.http().chat("sk-alice", chat("gpt-4o")).statusCode()).isEqualTo(200);
        }
        JsonNode status = status(first);
        JsonNode store = status.get("store");
        assertThat(store.get("healthy").asBoolean()).isFalse();
        assertThat(store.get("circuits").get("redis").asText()).isEqualTo("open");
        assertThat(store.get("failures").get("decide").asLong()).isEqualTo(4);
        assertThat(store.get("failures").get("snapshot").asLong()).isEqualTo(2);
        assertThat(store.get("last_failed_operation").asText()).isEqualTo("snapshot");
        for (JsonNode model : status.get("models")) {
            assertThat(model.get("available").asBoolean()).isFalse();
            assertThat(model.get("saturation").asDouble()).isEqualTo(-1);
            assertThat(model.get("requests").asLong()).isEqualTo(-1);
        }
    }

    private static long evalShaCalls() {
        String info = String.valueOf(redis.call("INFO", "commandstats"));
        Matcher calls = Pattern.compile("cmdstat_evalsha:calls=(\\d+)").matcher(info);
        assertThat(calls.find()).as(info).isTrue();
        return Long.parseLong(calls.group(1));
    }
}
