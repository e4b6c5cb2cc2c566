package dev.llmratelimit.servlet;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.engine.CallerCounter;
import dev.llmratelimit.engine.CallerScope;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.HangingUpClient;
import dev.llmratelimit.testsupport.Http;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static dev.llmratelimit.testsupport.FilterServer.chat;
import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Per-caller limits through the filter in an embedded Tomcat, over real HTTP: the 429 answers, and
 * the parallel slot given back on every way a response can end.
 */
class CallerLimitFilterTest {

    private static final String[] MODELS = {"plain", "counted", "throws", "error-status", "incremental",
            "disconnect", "async-json", "async-stream"};

    private static final ScriptedChatServlet APP = new ScriptedChatServlet();
    private static RateLimitRuntime runtime;
    private static FilterServer server;
    private static Http http;

    @BeforeAll
    static void start() throws Exception {
        List<String> lines = new ArrayList<>(List.of("reservation.prod=0.9",
                "principals.alice.priority=prod", "principals.alice.max-parallel-requests=1",
                "principals.bob.rpm-limit=2",
                "principals.carol.user=carol-user", "users.carol-user.tpm-limit=30",
                "principals.dave.team=team-d", "principals.erin.team=team-d", "teams.team-d.rpm-limit=2"));
        for (String model : MODELS) {
            lines.add("models." + model + ".tpm=1000000");
        }
        lines.add("models.counted.rpm=100");
        runtime = RateLimitRuntime.create(properties(lines.toArray(String[]::new)), null);
        server = new FilterServer(runtime, Map.of("sk-alice", "alice", "sk-bob", "bob",
                        "sk-carol", "carol", "sk-dave", "dave", "sk-erin", "erin", "sk-zoe", "zoe"), APP, "/v1/chat/completions");
        http = server.http();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static String hashOf(String key) {
        return new CallerCounter(CallerScope.KEY, key, 1, 0, 0).label();
    }

    private static String throttled(String message) {
        return "{\"error\":{\"message\":\"" + message + "\",\"type\":\"throttling_error\",\"param\":null,\"code\":\"429\"}}";
    }

    /** Alice's one slot is free again: a probe is admitted (the slot is given back on a container thread after async ends). */
    private static void assertAliceSlotReleased() throws InterruptedException {
        int status = 0;
        for (int i = 0; i < 100 && status != 200; i++) {
            status = http.post("/v1/chat/completions?probe=1", "sk-alice", chat("plain")).statusCode();
            if (status != 200) {
                Thread.sleep(50);
            }
        }
        assertThat(status).as("alice's parallel slot was given back").isEqualTo(200);
    }

    @Test
    void aSecondRequestWhileTheFirstStreamsIsRefusedNamingTheKeyHashAndIsAdmittedAfterTheStreamEnds() throws Exception {
        HttpResponse<InputStream> streaming = Http.send(http.request("/v1/chat/completions", "sk-alice")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"incremental\",\"stream\":true}")).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(streaming.body(), StandardCharsets.UTF_8))) {
            assertThat(reader.readLine()).isEqualTo("data: {\"choices\":[{\"delta\":{\"content\":\"first\"}}]}");

            HttpResponse<String> refused = http.chat("sk-alice", chat("plain"));
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.body()).isEqualTo(throttled("Rate limit exceeded for key: " + hashOf("alice")
                    + ". Limit type: parallel_requests, Limit: 1, Current: 1"));
            assertThat(refused.body()).doesNotContain("alice");
            assertThat(Http.header(refused, "retry-after")).isEqualTo("1");
            assertThat(Http.header(refused, "x-ratelimit-priority")).isEqualTo("prod");
            assertThat(Http.header(refused, "content-type")).startsWith("application/json");
            assertThat(http.chat("sk-zoe", chat("plain")).statusCode()).isEqualTo(200);   // another key: its own counters

            APP.clientSawFirstChunk.countDown();
            while (reader.readLine() != null) {
                // the rest of the stream
            }
        }
        assertAliceSlotReleased();
    }

    @Test
    void theSlotIsGivenBackAfterAJsonResponse() throws InterruptedException {
        assertThat(http.chat("sk-alice", chat("plain")).statusCode()).isEqualTo(200);
        assertAliceSlotReleased();
    }

    @Test
    void theSlotIsGivenBackAfterAnApplicationException() throws InterruptedException {
        assertThat(http.chat("sk-alice", chat("throws")).statusCode()).isEqualTo(500);
        assertAliceSlotReleased();
        assertThat(http.chat("sk-alice", chat("error-status")).statusCode()).isEqualTo(500);
        assertAliceSlotReleased();
    }

    @Test
    void theSlotIsGivenBackAfterAsynchronousResponses() throws InterruptedException {
        assertThat(http.chat("sk-alice", chat("async-json")).statusCode()).isEqualTo(200);
        assertAliceSlotReleased();
        assertThat(http.chat("sk-alice", "{\"model\":\"async-stream\",\"stream\":true}").body())
                .isEqualTo("data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n");
        assertAliceSlotReleased();
    }

    @Test
    void theSlotIsGivenBackWhenTheClientHangsUpMidStream() throws Exception {
        byte[] bytes = "{\"model\":\"disconnect\",\"stream\":true}".getBytes(StandardCharsets.UTF_8);
        try (Socket hangingUp = HangingUpClient.postAndReadUntil(server.port(), "sk-alice", bytes, "\"content\":\"Hello\"")) {
            assertThat(http.chat("sk-alice", chat("plain")).statusCode()).isEqualTo(429);   // still in flight
        }
        APP.clientHungUp.countDown();
        assertThat(APP.streamEnded.await(30, TimeUnit.SECONDS)).isTrue();
        assertAliceSlotReleased();
    }

    @Test
    void requestsPerWindowAtKeyScopeAndTheRefusalCountsNoModelRequest() {
        assertThat(http.chat("sk-bob", chat("counted")).statusCode()).isEqualTo(200);
        assertThat(http.chat("sk-bob", chat("counted")).statusCode()).isEqualTo(200);
        HttpResponse<String> refused = http.chat("sk-bob", chat("counted"));

        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.body()).isEqualTo(throttled("Rate limit exceeded for key: " + hashOf("bob")
                + ". Limit type: requests, Limit: 2, Current: 2"));
        assertThat(Http.header(refused, "retry-after")).isIn("59", "60");
        assertThat(Http.header(refused, "x-ratelimit-priority")).isEqualTo("default");
        // The model counted bob's two admitted requests and this one: 100 - 3.
        HttpResponse<String> other = http.chat("sk-zoe", chat("counted"));
        assertThat(Http.header(other, "x-ratelimit-remaining-requests")).isEqualTo("97");
    }

    @Test
    void tokensPerWindowAtUserScope() {
        assertThat(http.chat("sk-carol", chat("plain")).statusCode()).isEqualTo(200);      // records 30 tokens
        HttpResponse<String> refused = http.chat("sk-carol", chat("plain"));

        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.body()).isEqualTo(throttled(
                "Rate limit exceeded for user: carol-user. Limit type: tokens, Limit: 30, Current: 30"));
    }

    @Test
    void requestsPerWindowAtTeamScopeAreSharedByItsKeys() {
        assertThat(http.chat("sk-dave", chat("plain")).statusCode()).isEqualTo(200);
        assertThat(http.chat("sk-erin", chat("plain")).statusCode()).isEqualTo(200);
        HttpResponse<String> refused = http.chat("sk-dave", chat("plain"));

        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.body()).isEqualTo(throttled(
                "Rate limit exceeded for team: team-d. Limit type: requests, Limit: 2, Current: 2"));
        assertThat(http.chat("sk-erin", chat("plain")).statusCode()).isEqualTo(429);
    }
}
