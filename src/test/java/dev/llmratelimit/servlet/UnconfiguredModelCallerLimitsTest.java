package dev.llmratelimit.servlet;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.Http;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A caller's own limits are about the caller: they apply to every request of hers, also for a model
 * that no {@code models.*} entry names (which {@code reject-unknown-models=false} lets through).
 */
class UnconfiguredModelCallerLimitsTest {

    /** Answers with usage; while {@link #hold} is closed, the first request waits in the application. */
    private static final class HoldingServlet extends HttpServlet {
        final AtomicInteger calls = new AtomicInteger();
        final CountDownLatch entered = new CountDownLatch(1);
        volatile CountDownLatch hold = new CountDownLatch(0);

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            request.getInputStream().readAllBytes();
            calls.incrementAndGet();
            entered.countDown();
            try {
                hold.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            response.setContentType("application/json");
            response.getOutputStream().write(("{\"choices\":[]," + ScriptedChatServlet.USAGE_30 + "}")
                    .getBytes(StandardCharsets.UTF_8));
        }
    }

    private final HoldingServlet app = new HoldingServlet();
    private FilterServer server;

    private Http start(String... lines) throws Exception {
        server = new FilterServer(RateLimitRuntime.create(properties(lines), null),
                Map.of("sk-bob", "bob", "sk-alice", "alice", "sk-zoe", "zoe"), app, "/v1/chat/completions");
        return server.http();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    @Test
    void aKeysRpmLimitCountsRequestsForAModelNobodyConfigured() throws Exception {
        Http http = start("models.gpt-4o.rpm=100", "principals.bob.rpm-limit=20");
        int served = 0;
        int refused = 0;
        for (int i = 0; i < 64; i++) {
            HttpResponse<String> answer = http.chat("sk-bob", FilterServer.chat("some-local-model"));
            if (answer.statusCode() == 200) {
                served++;
            } else {
                assertThat(answer.statusCode()).isEqualTo(429);
                assertThat(Http.header(answer, "retry-after")).isNotNull();
                refused++;
            }
        }
        assertThat(served).isEqualTo(20);
        assertThat(refused).isEqualTo(44);
        assertThat(app.calls).hasValue(20);
        // the same key's requests count once across models: gpt-4o is refused too
        assertThat(http.chat("sk-bob", FilterServer.chat("gpt-4o")).statusCode()).isEqualTo(429);
        // a caller without limits of her own is not counted for an unconfigured model
        for (int i = 0; i < 30; i++) {
            HttpResponse<String> answer = http.chat("sk-zoe", FilterServer.chat("some-local-model"));
            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(Http.header(answer, "x-ratelimit-remaining-requests")).isNull();
        }
    }

    @Test
    void aKeysParallelSlotsHoldForAModelNobodyConfigured() throws Exception {
        Http http = start("models.gpt-4o.rpm=100", "principals.alice.max-parallel-requests=1");
        app.hold = new CountDownLatch(1);
        CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(
                () -> http.chat("sk-alice", FilterServer.chat("some-local-model")));
        assertThat(app.entered.await(10, TimeUnit.SECONDS)).isTrue();
        HttpResponse<String> second = http.chat("sk-alice", FilterServer.chat("some-local-model"));
        assertThat(second.statusCode()).isEqualTo(429);
        app.hold.countDown();
        assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        // the slot came back with the first answer
        assertThat(http.chat("sk-alice", FilterServer.chat("some-local-model")).statusCode()).isEqualTo(200);
        assertThat(app.calls).hasValue(2);
    }
}
