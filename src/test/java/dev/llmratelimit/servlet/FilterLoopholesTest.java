package dev.llmratelimit.servlet;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.Http;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.GZIPOutputStream;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/** Ways around the limit or the contract that a review found, each closed: exact numbers and bytes. */
class FilterLoopholesTest {

    static final String USAGE_30 = "{\"id\":\"1\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":20,\"total_tokens\":30}}";

    /** Shadow mode + reject-unknown-models: a request for an unconfigured model reaches the application untouched. */
    @Test
    void shadowModeLeavesRequestsForUnconfiguredModelsUntouched() throws Exception {
        ScriptedChatServlet app = new ScriptedChatServlet();
        Map<String, String> config = properties("models.plain.tpm=1000", "mode=shadow", "reject-unknown-models=true");
        try (FilterServer server = new FilterServer(RateLimitRuntime.create(config, null), Map.of(), app,
                "/v1/chat/completions")) {
            String body = "{\"model\":\"not-configured\",\"stream\":true}";
            HttpResponse<String> response = server.http().chat(null, body);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(new String(app.receivedBytes.get(), StandardCharsets.UTF_8)).isEqualTo(body);
        }
    }

    /** An application that compresses its answer when the client accepts gzip (e.g. Jersey's EncodingFilter). */
    static final class GzipServlet extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            request.getInputStream().readAllBytes();
            byte[] json = USAGE_30.getBytes(StandardCharsets.UTF_8);
            response.setContentType("application/json");
            String accept = request.getHeader("Accept-Encoding");
            if (accept != null && accept.contains("gzip")) {
                ByteArrayOutputStream zipped = new ByteArrayOutputStream();
                try (GZIPOutputStream gz = new GZIPOutputStream(zipped)) {
                    gz.write(json);
                }
                response.setHeader("Content-Encoding", "gzip");
                json = zipped.toByteArray();
            }
            response.getOutputStream().write(json);
        }
    }

    @Test
    void aClientThatAcceptsGzipIsChargedLikeAnyOther() throws Exception {
        Map<String, String> config = properties("models.m.tpm=30");
        try (FilterServer server = new FilterServer(RateLimitRuntime.create(config, null), Map.of(), new GzipServlet(),
                "/v1/chat/completions")) {
            Http http = server.http();
            for (int i = 0; i < 5; i++) {
                HttpResponse<String> response = Http.send(http.request("/v1/chat/completions", null)
                        .setHeader("Accept-Encoding", "gzip")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\"}")).build());
                // tpm=30: each answer uses 30 tokens, so the second request must be refused
                assertThat(response.statusCode()).as("request " + i).isEqualTo(i == 0 ? 200 : 429);
            }
        }
    }

    /** Async application that writes its JSON through getWriter() and completes without flushing. */
    static final class AsyncWriterServlet extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            request.getInputStream().readAllBytes();
            AsyncContext async = request.startAsync();
            async.start(() -> {
                try {
                    HttpServletResponse r = (HttpServletResponse) async.getResponse();
                    r.setContentType("application/json");
                    PrintWriter w = r.getWriter();
                    w.write(USAGE_30);
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                } finally {
                    async.complete();
                }
            });
        }
    }

    @Test
    void asyncWriterIsDeliveredAndCharged() throws Exception {
        Map<String, String> config = properties("models.m.tpm=30");
        try (FilterServer server = new FilterServer(RateLimitRuntime.create(config, null), Map.of(), new AsyncWriterServlet(),
                "/v1/chat/completions")) {
            Http http = server.http();
            HttpResponse<String> first = http.chat(null, "{\"model\":\"m\"}");
            assertThat(first.body()).isEqualTo(USAGE_30);
            Thread.sleep(300);
            assertThat(http.chat(null, "{\"model\":\"m\"}").statusCode()).isEqualTo(429);
        }
    }

    /** Sync application writing non-ASCII through getWriter() with the container's default charset. */
    static final class WriterServlet extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            request.getInputStream().readAllBytes();
            response.setContentType("application/json");
            response.getWriter().write("{\"id\":\"caf\u00e9\",\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}");
        }
    }

    @Test
    void writerContentTypeMatchesWhatTheContainerWouldSend() throws Exception {
        Map<String, String> config = properties("models.m.tpm=3000");
        try (FilterServer server = new FilterServer(RateLimitRuntime.create(config, null), Map.of(), new WriterServlet(),
                "/v1/chat/completions", "/other")) {
            Http http = server.http();
            HttpResponse<byte[]> limited = Http.send(http.request("/v1/chat/completions", null)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\"}")).build(), HttpResponse.BodyHandlers.ofByteArray());
            HttpResponse<byte[]> plain = Http.send(http.request("/other", null)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\"}")).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertThat(limited.body()).isEqualTo(plain.body());
            assertThat(Http.header(limited, "content-type")).isEqualTo(Http.header(plain, "content-type"));
        }
    }

    /** An OpenAI-like streaming endpoint: reads the body in its declared charset, sends usage only when asked. */
    static final class StreamingServlet extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            if (request.getParameter("probe") != null) {
                response.setContentType("application/json");
                response.getOutputStream().write("{\"id\":\"probe\"}".getBytes(StandardCharsets.UTF_8));
                return;
            }
            String text = request.getReader().lines().reduce("", String::concat);
            boolean includeUsage;
            try {
                byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
                includeUsage = dev.llmratelimit.chat.ChatRequest.parse(utf8, utf8.length).includeUsage();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            response.setContentType("text/event-stream");
            java.io.OutputStream out = response.getOutputStream();
            ScriptedChatServlet.event(out, "{\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}");
            if (includeUsage) {
                ScriptedChatServlet.event(out, "{\"choices\":[],\"usage\":{\"prompt_tokens\":1000,\"completion_tokens\":20}}");
            }
            out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
        }
    }

    private static long used(Http http, String model) {
        HttpResponse<String> probe = http.post("/v1/chat/completions?probe=1", null, "{\"model\":\"" + model + "\"}");
        return 1_000_000 - Long.parseLong(Http.header(probe, "x-ratelimit-remaining-tokens"));
    }

    /** A body declared ISO-8859-1 reads as UTF-8 only when it is ASCII (non-ASCII text as JSON escapes): then it is charged alike. */
    @Test
    void aStreamDeclaredInLatin1IsChargedLikeTheSameInUtf8() throws Exception {
        Map<String, String> config = properties("models.utf8.tpm=1000000", "models.latin.tpm=1000000");
        try (FilterServer server = new FilterServer(RateLimitRuntime.create(config, null), Map.of(), new StreamingServlet(),
                "/v1/chat/completions")) {
            Http http = server.http();
            String prompt = "\\u00e9 " + "The quick brown fox jumps over the lazy dog. ".repeat(40);
            for (String model : new String[] {"utf8", "latin"}) {
                String body = "{\"model\":\"" + model + "\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}";
                boolean latin = model.equals("latin");
                HttpResponse<String> r = Http.send(http.request("/v1/chat/completions", null)
                        .setHeader("Content-Type", "application/json; charset=" + (latin ? "ISO-8859-1" : "UTF-8"))
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body.getBytes(latin ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8))).build());
                assertThat(r.statusCode()).isEqualTo(200);
            }
            assertThat(used(http, "utf8")).isEqualTo(1020);
            assertThat(used(http, "latin")).as("same request, declared ISO-8859-1").isEqualTo(1020);
        }
    }
}
