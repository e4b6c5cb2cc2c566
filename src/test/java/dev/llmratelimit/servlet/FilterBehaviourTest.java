package dev.llmratelimit.servlet;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.HangingUpClient;
import dev.llmratelimit.testsupport.Http;
import dev.llmratelimit.usage.TokenCounter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
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

/** The filter in an embedded Tomcat in front of a scripted application, over real HTTP. */
class FilterBehaviourTest {

    private static final String[] MODELS = {"echo", "plain", "no-usage", "broken-usage", "error-status", "throws",
            "incremental", "disconnect", "async-json", "async-stream", "stream"};

    private static final ScriptedChatServlet APP = new ScriptedChatServlet();
    private static RateLimitRuntime runtime;
    private static FilterServer server;
    private static Http http;

    @BeforeAll
    static void start() throws Exception {
        List<String> lines = new ArrayList<>(List.of("max-body-size=2KiB", "reservation.prod=0.9"));
        for (String model : MODELS) {
            lines.add("models." + model + ".tpm=1000000");
        }
        Map<String, String> config = properties(lines.toArray(String[]::new));
        config.put("llm.ratelimit.principals.alice.priority", "prod");
        runtime = RateLimitRuntime.create(config, null);
        server = new FilterServer(runtime, Map.of("sk-alice", "alice"), APP,
                "/v1/chat/completions", "/chat/completions", "/other");
        http = server.http();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    /** Tokens used so far for the model, read from the headers of a probe that records none itself. */
    private static long usedTokens(String model) {
        HttpResponse<String> probe = http.post("/v1/chat/completions?probe=1", "sk-alice", chat(model));
        return 1_000_000 - Long.parseLong(Http.header(probe, "x-ratelimit-remaining-tokens"));
    }

    /** The tokens of a model once the filter has settled a request that ended on another thread. */
    private static long settledTokens(String model, long expected) throws InterruptedException {
        for (int i = 0; i < 100 && usedTokens(model) != expected; i++) {
            Thread.sleep(50);
        }
        return usedTokens(model);
    }

    @Test
    void theApplicationReceivesTheIdenticalBodyThroughTheStream() {
        String body = "{\"model\":\"echo\",\"messages\":[{\"role\":\"user\",\"content\":\"Grüße, 你好, ✓ \\u00e9\"}]}";
        HttpResponse<String> response = Http.send(http.request("/v1/chat/completions", "sk-alice")
                .setHeader("Content-Type", "application/json; charset=UTF-8")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)).build());

        assertThat(response.statusCode()).isEqualTo(200);
        byte[] sent = body.getBytes(StandardCharsets.UTF_8);
        assertThat(APP.receivedBytes.get()).isEqualTo(sent);
        assertThat(APP.receivedContentLength.get()).isEqualTo(sent.length + "/" + sent.length);
    }

    @Test
    void theApplicationReceivesTheIdenticalTextThroughTheReaderInTheDeclaredCharset() {
        String body = "{\"model\":\"echo\",\"messages\":[{\"content\":\"café 你好\"}]}";
        HttpResponse<String> response = Http.send(http.request("/v1/chat/completions?reader=1", "sk-alice")
                .setHeader("Content-Type", "application/json; charset=UTF-16LE")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_16LE)).build());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(APP.receivedText.get()).isEqualTo(body);
    }

    /** docs/hostile-input.md:: JSON parsers read these bytes as UTF-8 whatever the declared charset says, so they have no one reading. */
    @Test
    void aBodyDeclaredLatin1WhoseBytesAreNotAsciiIs400() {
        int before = APP.calls.get();
        String body = "{\"model\":\"echo\",\"messages\":[{\"content\":\"café\"}]}";
        HttpResponse<String> response = Http.send(http.request("/v1/chat/completions?reader=1", "sk-alice")
                .setHeader("Content-Type", "application/json; charset=ISO-8859-1")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.ISO_8859_1)).build());

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).isEqualTo("{\"error\":{\"message\":\"The request body is not valid JSON: its bytes "
                + "are not valid UTF-8.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"invalid_request\"}}");
        assertThat(APP.calls.get()).isEqualTo(before);
    }

    @Test
    void aBodyOverTheMaximumIs413AndNeverReachesTheApplication() {
        int before = APP.calls.get();
        String big = "{\"model\":\"plain\",\"messages\":[{\"content\":\"" + "x".repeat(4096) + "\"}]}";
        HttpResponse<String> response = http.chat("sk-alice", big);

        assertThat(response.statusCode()).isEqualTo(413);
        assertThat(response.body()).isEqualTo("{\"error\":{\"message\":\"Request body exceeds the maximum of 2048 bytes\","
                + "\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"request_too_large\"}}");
        assertThat(APP.calls.get()).isEqualTo(before);
    }

    @Test
    void invalidBodiesAre400AndNeverReachTheApplication() {
        int before = APP.calls.get();
        for (String body : List.of("{\"model\":", "[1,2]", "{\"messages\":[]}", "{\"model\":42}",
                "{\"model\":\"plain\",\"model\":\"other\"}", "", "{\"model\":\"plain\"} trailing")) {
            HttpResponse<String> response = http.chat("sk-alice", body);
            assertThat(response.statusCode()).as(body).isEqualTo(400);
            assertThat(response.body()).as(body).startsWith("{\"error\":{\"message\":")
                    .contains("\"type\":\"invalid_request_error\"");
        }
        assertThat(APP.calls.get()).isEqualTo(before);
    }

    @Test
    void otherPathsAndMethodsPassUntouched() {
        HttpResponse<String> other = http.post("/other", "sk-alice", "not json at all");
        assertThat(other.statusCode()).isEqualTo(500);                                  // the application's own parse failure
        assertThat(Http.header(other, "x-ratelimit-priority")).isNull();
    }

    @Test
    void answersWithoutUsageAreChargedPromptAndWrittenOutputThoseWithUnusableUsageTheSameAndBothReachTheClientUnchanged() {
        HttpResponse<String> none = http.chat("sk-alice", chat("no-usage"));
        HttpResponse<String> broken = http.chat("sk-alice", chat("broken-usage"));

        assertThat(none.body()).isEqualTo("{\"id\":\"1\",\"choices\":[]}");
        assertThat(broken.body()).isEqualTo("{\"id\":\"1\",\"usage\":{\"prompt_tokens\":\"ten\",\"completion_tokens\":5}}");
        byte[] body = chat("no-usage").getBytes(StandardCharsets.UTF_8);
        assertThat(TokenCounter.forModel("no-usage").promptTokens(body, body.length))
                .isEqualTo(3 + 3 + 1 + 1);                                       // priming, a message, "user", "Hi"
        assertThat(usedTokens("no-usage")).isEqualTo(8 + 6);                     // 23 bytes written, 4 a token
        assertThat(usedTokens("broken-usage")).isEqualTo(8 + 16);                // 64 bytes written
    }

    @Test
    void jsonResponsesAreChargedTheirUsage() {
        assertThat(http.chat("sk-alice", chat("plain")).body()).isEqualTo("{\"id\":\"1\",\"choices\":[]," + ScriptedChatServlet.USAGE_30 + "}");
        assertThat(usedTokens("plain")).isEqualTo(30);
    }

    @Test
    void errorsAndExceptionsRecordNoTokens() {
        assertThat(http.chat("sk-alice", chat("error-status")).statusCode()).isEqualTo(500);
        assertThat(http.chat("sk-alice", chat("throws")).statusCode()).isEqualTo(500);
        assertThat(usedTokens("error-status")).isZero();
        assertThat(usedTokens("throws")).isZero();
    }

    @Test
    void asynchronousResponsesAreCharged() throws InterruptedException {
        HttpResponse<String> json = http.chat("sk-alice", chat("async-json"));
        HttpResponse<String> stream = http.chat("sk-alice",
                "{\"model\":\"async-stream\",\"stream\":true,\"stream_options\":{\"include_usage\":true}}");

        assertThat(json.body()).isEqualTo("{\"id\":\"1\",\"choices\":[]," + ScriptedChatServlet.USAGE_30 + "}");
        assertThat(stream.body()).isEqualTo("data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n"
                + "data: {\"choices\":[]," + ScriptedChatServlet.USAGE_30 + "}\n\ndata: [DONE]\n\n");
        assertThat(settledTokens("async-json", 30)).isEqualTo(30);
        assertThat(settledTokens("async-stream", 30)).isEqualTo(30);
    }

    @Test
    void theFilterAsksForStreamUsageAndHidesTheUsageChunk() {
        HttpResponse<String> stream = http.chat("sk-alice", "{\"model\":\"async-stream\",\"stream\":true}");

        assertThat(stream.body()).isEqualTo("data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n");
        assertThat(new String(APP.receivedBytes.get(), StandardCharsets.UTF_8))
                .isEqualTo("{\"stream_options\":{\"include_usage\":true},\"model\":\"async-stream\",\"stream\":true}");
    }

    @Test
    void aRequestForAnUnconfiguredModelPassesUntouched() {
        String body = "{\"model\":\"not-configured\",\"stream\":true}";
        HttpResponse<String> response = http.chat("sk-alice", body);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(new String(APP.receivedBytes.get(), StandardCharsets.UTF_8)).isEqualTo(body);
        assertThat(Http.header(response, "x-ratelimit-priority")).isNull();
        assertThat(response.body()).isEqualTo("{\"id\":\"1\",\"choices\":[]," + ScriptedChatServlet.USAGE_30 + "}");
    }

    @Test
    void aStreamReachesTheClientChunkByChunk() throws Exception {
        HttpResponse<InputStream> response = Http.send(http.request("/v1/chat/completions", "sk-alice")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"incremental\",\"stream\":true,"
                                + "\"stream_options\":{\"include_usage\":true}}")).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            assertThat(reader.readLine()).isEqualTo("data: {\"choices\":[{\"delta\":{\"content\":\"first\"}}]}");
            APP.clientSawFirstChunk.countDown();
            StringBuilder rest = new StringBuilder();
            String line;
            while ((line = reader.readLine()) != null) {
                rest.append(line).append('\n');
            }
            assertThat(rest.toString()).endsWith("data: [DONE]\n\n");
        }
        assertThat(APP.releasedBeforeLastChunk.get()).isTrue();
        assertThat(usedTokens("incremental")).isEqualTo(30);
    }

    @Test
    void aClientThatHangsUpMidStreamIsChargedPromptAndStreamedTokens() throws Exception {
        String body = "{\"model\":\"disconnect\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"Tell me a story\"}]}";
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        HangingUpClient.postAndReadUntil(server.port(), "sk-alice", bytes, "\"content\":\"Hello\"").close();
        APP.clientHungUp.countDown();
        assertThat(APP.streamEnded.await(30, TimeUnit.SECONDS)).isTrue();

        TokenCounter counter = TokenCounter.forModel("disconnect");
        long expected = counter.promptTokens(bytes, bytes.length) + counter.count(String.join("", APP.attemptedContent));
        assertThat(APP.attemptedContent.size()).isLessThan(2001);
        assertThat(expected).isGreaterThan(counter.promptTokens(bytes, bytes.length));
        assertThat(settledTokens("disconnect", expected)).isEqualTo(expected);
    }
}
