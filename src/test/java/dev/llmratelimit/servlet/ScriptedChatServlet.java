package dev.llmratelimit.servlet;

import dev.llmratelimit.chat.ChatRequest;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/** A chat endpoint whose behaviour is chosen by the request's model, for the filter's edge cases. */
final class ScriptedChatServlet extends HttpServlet {

    static final String USAGE_30 = "\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":20,\"total_tokens\":30}";

    final AtomicInteger calls = new AtomicInteger();
    final AtomicReference<byte[]> receivedBytes = new AtomicReference<>();
    final AtomicReference<String> receivedText = new AtomicReference<>();
    final AtomicReference<String> receivedContentLength = new AtomicReference<>();
    final CountDownLatch clientSawFirstChunk = new CountDownLatch(1);
    final CountDownLatch clientHungUp = new CountDownLatch(1);
    final AtomicReference<Boolean> releasedBeforeLastChunk = new AtomicReference<>();
    final List<String> attemptedContent = new CopyOnWriteArrayList<>();
    final CountDownLatch streamEnded = new CountDownLatch(1);

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (request.getParameter("probe") != null) {
            json(response, "{\"id\":\"probe\",\"choices\":[],\"usage\":{\"prompt_tokens\":0,\"completion_tokens\":0}}");
            return;
        }
        calls.incrementAndGet();
        receivedContentLength.set(request.getContentLength() + "/" + request.getHeader("Content-Length"));
        String model;
        if (request.getParameter("reader") != null) {
            String text = request.getReader().lines().reduce("", (a, b) -> a.isEmpty() ? b : a + "\n" + b);
            receivedText.set(text);
            model = text.contains("\"echo\"") ? "echo" : "?";
        } else {
            byte[] body = request.getInputStream().readAllBytes();
            receivedBytes.set(body);
            try {
                model = ChatRequest.parse(body, body.length).model();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        switch (model) {
            case "echo", "plain" -> json(response, "{\"id\":\"1\",\"choices\":[]," + USAGE_30 + "}");
            case "no-usage" -> json(response, "{\"id\":\"1\",\"choices\":[]}");
            case "broken-usage" -> json(response, "{\"id\":\"1\",\"usage\":{\"prompt_tokens\":\"ten\",\"completion_tokens\":5}}");
            case "error-status" -> {
                response.setStatus(500);
                json(response, "{\"error\":{\"message\":\"upstream\"}," + USAGE_30 + "}");
            }
            case "throws" -> throw new IllegalStateException("application failure");
            case "incremental" -> incremental(response);
            case "disconnect" -> disconnect(response);
            case "async-json" -> {
                AsyncContext async = request.startAsync();
                async.start(() -> {
                    try {
                        json((HttpServletResponse) async.getResponse(), "{\"id\":\"1\",\"choices\":[]," + USAGE_30 + "}");
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    } finally {
                        async.complete();
                    }
                });
            }
            case "async-stream" -> {
                AsyncContext async = request.startAsync();
                async.start(() -> {
                    try {
                        HttpServletResponse asyncResponse = (HttpServletResponse) async.getResponse();
                        asyncResponse.setContentType("text/event-stream");
                        OutputStream out = asyncResponse.getOutputStream();
                        event(out, "{\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}");
                        asyncResponse.flushBuffer();
                        event(out, "{\"choices\":[]," + USAGE_30 + "}");
                        out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    } finally {
                        async.complete();
                    }
                });
            }
            default -> json(response, "{\"id\":\"1\",\"choices\":[]," + USAGE_30 + "}");
        }
    }

    private void incremental(HttpServletResponse response) throws IOException {
        response.setContentType("text/event-stream");
        OutputStream out = response.getOutputStream();
        event(out, "{\"choices\":[{\"delta\":{\"content\":\"first\"}}]}");
        response.flushBuffer();
        releasedBeforeLastChunk.set(await(clientSawFirstChunk));
        event(out, "{\"choices\":[{\"delta\":{\"content\":\" last\"}}]}");
        event(out, "{\"choices\":[]," + USAGE_30 + "}");
        out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
    }

    /** Streams until the client's disconnect makes a write fail; remembers every content it tried. */
    private void disconnect(HttpServletResponse response) throws IOException {
        response.setContentType("text/event-stream");
        OutputStream out = response.getOutputStream();
        try {
            attemptedContent.add("Hello");
            event(out, "{\"choices\":[{\"delta\":{\"content\":\"Hello\"}}]}");
            response.flushBuffer();
            await(clientHungUp);
            for (int i = 0; i < 2000; i++) {
                attemptedContent.add(" world");
                event(out, "{\"choices\":[{\"delta\":{\"content\":\" world\"}}]}");
                response.flushBuffer();
                Thread.sleep(2);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            streamEnded.countDown();
        }
    }

    private static boolean await(CountDownLatch latch) {
        try {
            return latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    static void event(OutputStream out, String json) throws IOException {
        out.write(("data: " + json + "\n\n").getBytes(StandardCharsets.UTF_8));
    }

    static void json(HttpServletResponse response, String json) throws IOException {
        response.setContentType("application/json");
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
    }
}
