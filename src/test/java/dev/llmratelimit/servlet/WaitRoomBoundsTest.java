package dev.llmratelimit.servlet;

import dev.llmratelimit.chat.ChatRequest;
import dev.llmratelimit.config.FilterSettings;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.PlanExtension;
import dev.llmratelimit.engine.PromptTokens;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.identity.Caller;
import dev.llmratelimit.identity.CallerLimitPolicy;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.Http;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;

import static dev.llmratelimit.testsupport.FilterServer.chat;
import static dev.llmratelimit.testsupport.Policies.policy;
import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the wait room holds is bounded: bytes of waiting bodies ({@code max-waiting-bytes}) and each
 * caller's share of the room ({@code max-waiters-per-caller}); beyond either a request gets the 429
 * it would have had, at once. A waiter is decided again without being tokenized again.
 */
class WaitRoomBoundsTest {

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private final ModelEchoServlet app = new ModelEchoServlet();
    private RateLimitRuntime runtime;
    private FilterServer server;

    private Http start(String... lines) throws Exception {
        runtime = RateLimitRuntime.create(properties(lines), null);
        server = new FilterServer(runtime, Map.of("sk-alice", "alice", "sk-bob", "bob"), app, "/v1/chat/completions");
        return server.http();
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private CompletableFuture<HttpResponse<String>> sendAsync(String key, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                + "/v1/chat/completions")).timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            request.header("Authorization", "Bearer " + key);
        }
        return CLIENT.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void await(IntSupplier value, int expected) throws InterruptedException {
        for (int i = 0; i < 500 && value.getAsInt() != expected; i++) {
            Thread.sleep(10);
        }
        assertThat(value.getAsInt()).isEqualTo(expected);
    }

    /** A chat body of about {@code bytes} bytes. */
    private static String bodyOf(int bytes) {
        return "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"" + "a ".repeat(bytes / 2) + "\"}]}";
    }

    @Test
    void waitingBodiesStayWithinTheByteBudget() throws Exception {
        Http http = start("models.m.rpm=1", "window=60s", "max-wait=2s", "max-waiters=100", "max-waiting-bytes=10KiB");
        assertThat(http.chat(null, chat("m")).statusCode()).isEqualTo(200);
        String fourKiB = bodyOf(4096);
        List<CompletableFuture<HttpResponse<String>>> waiting = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            waiting.add(sendAsync("sk-alice", fourKiB));
            await(() -> runtime.waitRoom().waiters(), i + 1);
        }
        assertThat(runtime.waitRoom().waitingBytes()).isEqualTo(2L * fourKiB.getBytes(StandardCharsets.UTF_8).length);
        long started = System.nanoTime();
        HttpResponse<String> third = http.chat("sk-bob", fourKiB);            // 12 KiB would not fit
        assertThat(third.statusCode()).isEqualTo(429);
        assertThat(Http.header(third, "x-ratelimit-waited-ms")).isNull();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
        assertThat(runtime.waitRoom().waiters()).isEqualTo(2);
        for (CompletableFuture<HttpResponse<String>> answer : waiting) {
            assertThat(answer.get().statusCode()).isEqualTo(429);
        }
        assertThat(runtime.waitRoom().waitingBytes()).isZero();
    }

    /**
     * Alice is refused by her own rpm-limit and sends twenty requests; with the default share (a
     * tenth of twenty) two of them wait and the others get their 429 at once, so Bob, refused because
     * the model is full, still finds a place in the room.
     */
    @Test
    void oneCallerCannotFillTheRoom() throws Exception {
        Http http = start("models.m.rpm=2", "window=60s", "max-wait=2s", "max-waiters=20",
                "principals.alice.rpm-limit=1");
        assertThat(http.chat("sk-alice", chat("m")).statusCode()).isEqualTo(200);
        List<CompletableFuture<HttpResponse<String>>> alice = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            alice.add(sendAsync("sk-alice", chat("m")));
        }
        await(() -> (int) alice.stream().filter(CompletableFuture::isDone).count(), 18);
        assertThat(alice.stream().filter(CompletableFuture::isDone).map(CompletableFuture::join)
                .allMatch(r -> r.statusCode() == 429 && Http.header(r, "x-ratelimit-waited-ms") == null)).isTrue();
        assertThat(runtime.waitRoom().waiters()).isEqualTo(2);

        assertThat(http.chat("sk-bob", chat("m")).statusCode()).isEqualTo(200);    // the model's last request
        CompletableFuture<HttpResponse<String>> bob = sendAsync("sk-bob", chat("m"));
        await(() -> runtime.waitRoom().waiters(), 3);                             // bob waits
        HttpResponse<String> bobsAnswer = bob.get();
        assertThat(bobsAnswer.statusCode()).isEqualTo(429);
        assertThat(Http.header(bobsAnswer, "x-ratelimit-waited-ms")).isNotNull();
    }

    /** Records the prompt estimate each decision was given. */
    private static final class PromptsSeen implements PlanExtension {
        final Set<PromptTokens> prompts = Collections.newSetFromMap(new IdentityHashMap<>());
        int decisions;

        @Override
        public Contribution contribute(AdmissionRequest request, TokenEstimate tokens) {
            decisions++;
            prompts.add(request.prompt());
            return Contribution.NONE;
        }
    }

    /** A waiter refused on tokens is decided again many times: its prompt is counted once, by the first decision. */
    @Test
    void aWaiterIsDecidedAgainWithThePromptCountOfItsFirstDecision() throws Exception {
        RateLimitPolicy policy = policy("models.m.tpm=100");
        PromptsSeen seen = new PromptsSeen();
        RateLimiter limiter = new RateLimiter(policy, new MemoryAdmissionStore(), Clock.systemUTC(),
                RateLimiter.DEFAULT_LEASE_MILLIS, List.of(seen));
        try (RateLimitRuntime given = new RateLimitRuntime(FilterSettings.parse(Map.of()), limiter,
                principal -> Caller.ANONYMOUS, CallerLimitPolicy.parse(Map.of(), policy.window()), () -> { })) {
            byte[] body = bodyOf(2048).getBytes(StandardCharsets.UTF_8);
            ModelChooser chooser = new ModelChooser(given, given.resolve(null), ChatRequest.parse(body, body.length), body);
            for (int i = 0; i < 5; i++) {
                chooser.choose();
            }
            assertThat(seen.decisions).isEqualTo(5);
            assertThat(seen.prompts).hasSize(1);
        }
    }
}
