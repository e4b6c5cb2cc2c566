package dev.llmratelimit.servlet;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.demo.BearerKeyAuthFilter;
import dev.llmratelimit.demo.EmbeddedTomcat;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.Http;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;

import static dev.llmratelimit.testsupport.FilterServer.chat;
import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Waiting instead of a 429 (docs/instead-of-429.md), in real time with a 2 s window: the wait room decides
 * waiters again at the window roll, in priority order, without holding a container thread.
 */
class WaitingFilterTest {

    private static final Map<String, String> KEYS = Map.of("sk-prod", "alice", "sk-dev", "bob");
    private static final HttpClient ASYNC_CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private final ModelEchoServlet app = new ModelEchoServlet();
    private RateLimitRuntime runtime;
    private AutoCloseable server;

    private Http start(String... lines) throws Exception {
        runtime = RateLimitRuntime.create(properties(lines), null);
        FilterServer filterServer = new FilterServer(runtime, KEYS, app, "/v1/chat/completions");
        server = filterServer;
        return filterServer.http();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    private CompletableFuture<HttpResponse<String>> sendAsync(int port, String key, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            request.header("Authorization", "Bearer " + key);
        }
        return ASYNC_CLIENT.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    private static void await(IntSupplier value, int expected) throws InterruptedException {
        for (int i = 0; i < 1_000 && value.getAsInt() != expected; i++) {
            Thread.sleep(10);
        }
        assertThat(value.getAsInt()).isEqualTo(expected);
    }

    /** A Go duration as the reset headers write it ({@code 59.5s}, {@code 1m0s}, {@code 12ms}) in milliseconds. */
    private static long goMillis(String duration) {
        if (duration.endsWith("ms")) {
            return Long.parseLong(duration.substring(0, duration.length() - 2));
        }
        int minutes = duration.indexOf('m');
        long minuteMillis = minutes < 0 ? 0 : Long.parseLong(duration.substring(0, minutes)) * 60_000;
        String seconds = duration.substring(minutes + 1, duration.length() - 1);
        return minuteMillis + new java.math.BigDecimal(seconds).movePointRight(3).longValueExact();
    }

    private int port() {
        return ((FilterServer) server).port();
    }

    @Test
    void aWaiterIsAdmittedWhenTheWindowRolls() throws Exception {
        Http http = start("models.m.rpm=1", "window=2s", "max-wait=5s");
        HttpResponse<String> first = http.chat(null, chat("m"));
        HttpResponse<String> waited = http.chat(null, chat("m"));
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(Http.header(first, "x-ratelimit-waited-ms")).isNull();
        assertThat(waited.statusCode()).isEqualTo(200);
        assertThat(Long.parseLong(Http.header(waited, "x-ratelimit-waited-ms"))).isBetween(1L, 5_000L);
        assertThat(Http.header(waited, "x-ratelimit-remaining-requests")).isEqualTo("0");
        assertThat(app.received).hasSize(2);
        assertThat(runtime.waitRoom().waiters()).isZero();
    }

    @Test
    void aWaitThatEndsInRefusalGivesThe429ItWouldHaveHad() throws Exception {
        Http http = start("models.m.rpm=1", "window=60s", "max-wait=300ms");
        http.chat(null, chat("m"));
        HttpResponse<String> refused = http.chat(null, chat("m"));
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(Long.parseLong(Http.header(refused, "x-ratelimit-waited-ms"))).isGreaterThanOrEqualTo(300);
        assertThat(Long.parseLong(Http.header(refused, "retry-after"))).isBetween(58L, 60L);
        assertThat(refused.body()).isEqualTo("{\"error\":{\"message\":\"Model capacity reached for m. Priority: default, "
                + "Rate limit type: requests, Model TPM: not configured, Model RPM: 1, Remaining: 0\","
                + "\"type\":\"throttling_error\",\"param\":null,\"code\":\"429\"}}");
        assertThat(app.received).hasSize(1);
    }

    /**
     * The room's last pass before the deadline came long before it (a poll interval longer than the
     * wait): the 429 still counts its retry-after from when the wait ended, not from when it began.
     */
    @Test
    void aWaitThatEndsInRefusalCountsItsRetryAfterFromTheEndOfTheWait() throws Exception {
        Http http = start("models.m.rpm=1", "window=60s", "max-wait=1500ms", "wait-poll-interval=10s");
        long windowLeft = goMillis(Http.header(http.chat(null, chat("m")), "x-ratelimit-reset-requests"));
        HttpResponse<String> refused = http.chat(null, chat("m"));
        assertThat(refused.statusCode()).isEqualTo(429);
        long waited = Long.parseLong(Http.header(refused, "x-ratelimit-waited-ms"));
        assertThat(waited).isGreaterThanOrEqualTo(1_500);
        long stillLeft = windowLeft - waited;
        assertThat(Long.parseLong(Http.header(refused, "retry-after"))).isBetween(1L, (stillLeft + 999) / 1000);
        assertThat(goMillis(Http.header(refused, "x-ratelimit-reset-requests"))).isLessThanOrEqualTo(stillLeft);
        assertThat(app.received).hasSize(1);
    }

    @Test
    void higherPrioritiesAreServedFirst() throws Exception {
        start("models.m.rpm=1", "window=2s", "max-wait=8s", "reservation.prod=0.6", "reservation.dev=0.4",
                "principals.alice.priority=prod", "principals.bob.priority=dev");
        Http http = ((FilterServer) server).http();
        HttpResponse<String> first = http.chat(null, chat("m"));
        assertThat(first.statusCode()).isEqualTo(200);
        long windowLeft = goMillis(Http.header(first, "x-ratelimit-reset-requests"));
        if (windowLeft < 1_500) {           // both must be waiting when the window rolls: start in a fresh one
            Thread.sleep(windowLeft + 50);
            assertThat(http.chat(null, chat("m")).statusCode()).isEqualTo(200);
            app.callers.remove(0);
        }
        CompletableFuture<HttpResponse<String>> dev = sendAsync(port(), "sk-dev", chat("m"));
        await(() -> runtime.waitRoom().waiters(), 1);
        CompletableFuture<HttpResponse<String>> prod = sendAsync(port(), "sk-prod", chat("m"));
        await(() -> runtime.waitRoom().waiters(), 2);
        assertThat(prod.get().statusCode()).isEqualTo(200);
        assertThat(dev.get().statusCode()).isEqualTo(200);
        assertThat(app.callers).containsExactly("-", "alice", "bob");
        assertThat(Long.parseLong(Http.header(dev.get(), "x-ratelimit-waited-ms")))
                .isGreaterThan(Long.parseLong(Http.header(prod.get(), "x-ratelimit-waited-ms")));
    }

    @Test
    void aFullRoomRefusesAtOnce() throws Exception {
        Http http = start("models.m.rpm=1", "window=60s", "max-wait=1s", "max-waiters=1");
        http.chat(null, chat("m"));
        CompletableFuture<HttpResponse<String>> waiting = sendAsync(port(), null, chat("m"));
        await(() -> runtime.waitRoom().waiters(), 1);
        HttpResponse<String> turnedAway = http.chat(null, chat("m"));
        assertThat(turnedAway.statusCode()).isEqualTo(429);
        assertThat(Http.header(turnedAway, "x-ratelimit-waited-ms")).isNull();
        assertThat(waiting.get().statusCode()).isEqualTo(429);
        assertThat(Http.header(waiting.get(), "x-ratelimit-waited-ms")).isNotNull();
    }

    /**
     * Servlet containers do not report a client that hangs up while its request waits asynchronously
     * (Tomcat notices only when the response is written), so the waiter stays in the room; when
     * admitted, the application runs and its answer is lost, and that call is counted as what it is:
     * a call the application made. What the container does report (an async error or timeout) takes
     * the waiter out without counting it.
     */
    @Test
    void aClientThatHangsUpWhileWaitingIsCountedOnlyIfTheApplicationRunsForIt() throws Exception {
        Http http = start("models.m.rpm=1", "window=2s", "max-wait=8s");
        http.chat(null, chat("m"));
        byte[] body = chat("m").getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket("127.0.0.1", port())) {
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            await(() -> runtime.waitRoom().waiters(), 1);
        }
        await(() -> app.received.size(), 2);
        assertThat(runtime.waitRoom().waiters()).isZero();
        HttpResponse<String> next = http.chat(null, chat("m"));
        assertThat(next.statusCode()).isEqualTo(200);
        assertThat(Long.parseLong(Http.header(next, "x-ratelimit-waited-ms"))).isPositive();
        assertThat(app.received).hasSize(3);
    }

    @Test
    void fourContainerThreadsHoldFiftyWaitersAndStillAnswerOtherPaths() throws Exception {
        runtime = RateLimitRuntime.create(properties("models.m.rpm=1", "window=60s", "max-wait=3s"), null);
        EmbeddedTomcat tomcat = new EmbeddedTomcat(0).maxThreads(4)
                .filter("auth", new BearerKeyAuthFilter(KEYS), "/*")
                .filter("llm-ratelimit", new RateLimitFilter(runtime), "/*")
                .servlet("chat", app, "/v1/chat/completions", "/other");
        int port = tomcat.start();
        server = () -> {
            tomcat.close();
            runtime.close();
        };
        new Http(port).chat(null, chat("m"));
        List<CompletableFuture<HttpResponse<String>>> waiting = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            waiting.add(sendAsync(port, null, chat("m")));
        }
        await(() -> runtime.waitRoom().waiters(), 50);
        HttpResponse<String> other = Http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/other"))
                .timeout(Duration.ofSeconds(5)).GET().build());
        assertThat(other.statusCode()).isEqualTo(200);
        assertThat(other.body()).isEqualTo("other path");
        for (CompletableFuture<HttpResponse<String>> answer : waiting) {
            assertThat(answer.get().statusCode()).isEqualTo(429);
        }
        assertThat(app.received).hasSize(1);
    }
}
