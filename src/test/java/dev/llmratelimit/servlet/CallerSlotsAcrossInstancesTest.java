package dev.llmratelimit.servlet;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.Http;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.testsupport.RedisTestSettings;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.llmratelimit.testsupport.FilterServer.chat;
import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code max-parallel-requests} over three independent instances (each its own runtime, limiter,
 * Redis client and wait room) on one real redis-server, with fallbacks and waiting on: requests of
 * one caller that the model refuses move to the fallback or wait; whatever path they take, no more
 * than N run at once, every one is answered, and at the end every slot is given back (the sorted
 * sets are empty, not merely expired).
 */
class CallerSlotsAcrossInstancesTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final int SLOTS = 3;

    /** Counts calls in flight over all instances and keeps the highest number seen. */
    static final class InFlightServlet extends HttpServlet {
        static final AtomicInteger IN_FLIGHT = new AtomicInteger();
        static final AtomicInteger MOST = new AtomicInteger();
        static final Map<String, AtomicInteger> BY_MODEL = new ConcurrentHashMap<>();

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            String body = new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int now = IN_FLIGHT.incrementAndGet();
            MOST.accumulateAndGet(now, Math::max);
            try {
                Thread.sleep(25);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                IN_FLIGHT.decrementAndGet();
            }
            if (body.contains("\"fail\"")) {
                throw new IllegalStateException("application failure");
            }
            String model = body.contains("\"model\":\"b\"") ? "b" : "a";
            BY_MODEL.computeIfAbsent(model, m -> new AtomicInteger()).incrementAndGet();
            byte[] answer = ("{\"id\":\"1\",\"choices\":[]," + ScriptedChatServlet.USAGE_30 + "}").getBytes(StandardCharsets.UTF_8);
            response.setContentType("application/json");
            response.setContentLength(answer.length);
            response.getOutputStream().write(answer);
        }
    }

    private static RateLimitRuntime instance() {
        Map<String, String> properties = properties("models.a.rpm=6", "models.b.rpm=10000", "models.a.fallbacks=b",
                "window=1s", "max-wait=20s", "max-waiters=1000", "principals.alice.max-parallel-requests=" + SLOTS,
                "store=redis", "token-admission=reserve", "models.a.tpm=1000000", "models.b.tpm=1000000");
        properties.putAll(RedisTestSettings.properties(REDIS.server().address()));
        return RateLimitRuntime.create(properties, null);
    }

    @Test
    void neverMoreThanNInFlightAndEverySlotGivenBack() throws Exception {
        List<FilterServer> servers = new ArrayList<>();
        List<RateLimitRuntime> runtimes = new ArrayList<>();
        ExecutorService clients = Executors.newFixedThreadPool(12);
        try {
            for (int i = 0; i < 3; i++) {
                runtimes.add(instance());
                servers.add(new FilterServer(runtimes.get(i), Map.of("sk-alice", "alice"), new InFlightServlet(),
                        "/v1/chat/completions"));
            }
            List<Future<HttpResponse<String>>> answers = new ArrayList<>();
            for (int i = 0; i < 120; i++) {
                Http http = servers.get(i % servers.size()).http();
                String body = i % 10 == 9
                        ? "{\"model\":\"a\",\"messages\":[{\"role\":\"user\",\"content\":\"fail\"}]}" : chat("a");
                answers.add(clients.submit(() -> http.chat("sk-alice", body)));
            }
            int ok = 0;
            int failed = 0;
            int waited = 0;
            for (Future<HttpResponse<String>> answer : answers) {
                HttpResponse<String> response = answer.get();
                ok += response.statusCode() == 200 ? 1 : 0;
                failed += response.statusCode() == 500 ? 1 : 0;
                waited += Http.header(response, "x-ratelimit-waited-ms") != null ? 1 : 0;
            }
            assertThat(ok).isEqualTo(108);                                   // the fallback has room for all
            assertThat(failed).isEqualTo(12);                                // the application's own failures
            assertThat(waited).isPositive();                                 // slots made some wait
            assertThat(InFlightServlet.MOST.get()).isBetween(1, SLOTS);
            assertThat(InFlightServlet.BY_MODEL.get("b")).isNotNull();     // the fallback did serve
            for (RateLimitRuntime runtime : runtimes) {
                assertThat(runtime.waitRoom().waiters()).isZero();
            }
            for (Object key : (List<?>) REDIS.server().call("KEYS", "*:s")) {
                assertThat(REDIS.server().call("ZCARD", key.toString())).as("slots left in " + key).isEqualTo(0L);
            }
            for (Object key : (List<?>) REDIS.server().call("KEYS", "*:req:*")) {
                throw new AssertionError("a decision never settled: " + key);
            }
        } finally {
            clients.shutdownNow();
            for (FilterServer server : servers) {
                server.close();
            }
        }
    }
}
