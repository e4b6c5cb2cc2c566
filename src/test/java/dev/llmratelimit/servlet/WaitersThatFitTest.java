package dev.llmratelimit.servlet;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.Http;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

import static dev.llmratelimit.testsupport.FilterServer.chat;
import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Waiting over a fallback chain (docs/instead-of-429.md): a waiter is decided again over its model and the
 * fallbacks, but the room groups waiters by what refused the first model only. A waiter whose
 * fallback stays full for it then hides, pass after pass, a later waiter of the same first model
 * that the fallback has room for now. Underneath, the same holds without fallbacks: the room takes a
 * refusal on tokens as "the group is full" for every later waiter, but a smaller request may fit
 * where a larger one does not.
 */
class WaitersThatFitTest {

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /** Answers with 30 tokens of usage; a request whose prompt is "hold" waits for {@link #release}. */
    static final class HoldingServlet extends HttpServlet {
        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch holding = new CountDownLatch(1);

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            String body = new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (body.contains("\"hold\"")) {
                holding.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            byte[] answer = ("{\"id\":\"1\",\"choices\":[]," + ScriptedChatServlet.USAGE_30 + "}").getBytes(StandardCharsets.UTF_8);
            response.setContentType("application/json");
            response.setContentLength(answer.length);
            response.getOutputStream().write(answer);
        }
    }

    private static String body(String model, long maxTokens, String content) {
        return "{\"model\":\"" + model + "\",\"max_tokens\":" + maxTokens
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + content + "\"}]}";
    }

    private static CompletableFuture<HttpResponse<String>> send(int port, String body) {
        return CLIENT.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void await(IntSupplier value, int expected) throws InterruptedException {
        for (int i = 0; i < 1_000 && value.getAsInt() != expected; i++) {
            Thread.sleep(10);
        }
        assertThat(value.getAsInt()).isEqualTo(expected);
    }

    @Test
    void aWaiterTheFallbackCannotTakeDoesNotHideOneItCanTake() throws Exception {
        RateLimitRuntime runtime = RateLimitRuntime.create(properties("models.a.rpm=1", "models.b.rpm=100",
                "models.b.tpm=2000", "models.a.fallbacks=b", "token-admission=reserve", "window=60s",
                "max-wait=4s"), null);
        HoldingServlet app = new HoldingServlet();
        try (FilterServer server = new FilterServer(runtime, Map.of(), app, "/v1/chat/completions")) {
            int port = server.port();
            assertThat(server.http().chat(null, chat("a")).statusCode()).isEqualTo(200);   // a is full for 60 s
            CompletableFuture<HttpResponse<String>> hold = send(port, body("b", 1980, "hold"));
            assertThat(app.holding.await(10, TimeUnit.SECONDS)).isTrue();              // b: about 1,990 tokens reserved

            // X: a refuses (requests); b cannot reserve 2,000 tokens while anything is counted there.
            CompletableFuture<HttpResponse<String>> big = send(port, body("a", 5000, "big"));
            await(() -> runtime.waitRoom().waiters(), 1);
            // Z: a refuses it the same way; b has no room for its 60 tokens while "hold" runs.
            CompletableFuture<HttpResponse<String>> small = send(port, body("a", 50, "small"));
            await(() -> runtime.waitRoom().waiters(), 2);
            Thread.sleep(700);                                         // both decided again in the room (poll: 250 ms)

            app.release.countDown();                                   // b falls to 30 tokens: room for Z, not X
            assertThat(hold.get().statusCode()).isEqualTo(200);
            long released = System.nanoTime();
            HttpResponse<String> served = small.get();
            long servedAfterMillis = (System.nanoTime() - released) / 1_000_000;
            assertThat(served.statusCode()).isEqualTo(200);
            assertThat(Http.header(served, RateLimitFilter.FALLBACK_FROM)).isEqualTo("a");
            assertThat(servedAfterMillis).as("Z served %d ms after b had room (it waited %s ms in all)",
                    servedAfterMillis, Http.header(served, "x-ratelimit-waited-ms")).isLessThan(1_500);
            assertThat(big.get().statusCode()).isEqualTo(429);
        }
    }

    @Test
    void aLargeWaiterRefusedOnTokensDoesNotHideASmallerOneThatFits() throws Exception {
        RateLimitRuntime runtime = RateLimitRuntime.create(properties("models.b.rpm=100", "models.b.tpm=2000",
                "token-admission=reserve", "window=60s", "max-wait=4s"), null);
        HoldingServlet app = new HoldingServlet();
        try (FilterServer server = new FilterServer(runtime, Map.of(), app, "/v1/chat/completions")) {
            int port = server.port();
            CompletableFuture<HttpResponse<String>> hold = send(port, body("b", 1980, "hold"));
            assertThat(app.holding.await(10, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<HttpResponse<String>> big = send(port, body("b", 5000, "big"));
            await(() -> runtime.waitRoom().waiters(), 1);
            CompletableFuture<HttpResponse<String>> small = send(port, body("b", 50, "small"));
            await(() -> runtime.waitRoom().waiters(), 2);
            Thread.sleep(700);

            app.release.countDown();
            assertThat(hold.get().statusCode()).isEqualTo(200);
            long released = System.nanoTime();
            HttpResponse<String> served = small.get();
            long servedAfterMillis = (System.nanoTime() - released) / 1_000_000;
            assertThat(served.statusCode()).isEqualTo(200);
            assertThat(servedAfterMillis).as("Z served %d ms after b had room (it waited %s ms in all)",
                    servedAfterMillis, Http.header(served, "x-ratelimit-waited-ms")).isLessThan(1_500);
            assertThat(big.get().statusCode()).isEqualTo(429);
        }
    }
}
