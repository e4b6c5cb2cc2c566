package dev.llmratelimit.demo;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.llmratelimit.chat.ChatRequest;
import dev.llmratelimit.chat.InvalidChatRequestException;
import dev.llmratelimit.usage.EndpointShape;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the demo's mock endpoints share: the request read as its endpoint shape, the configured
 * latency, the words of the answer, JSON and server-sent event writing. Each subclass answers as
 * one real API does, field by field, so the official SDKs parse it.
 */
abstract class MockEndpoint extends HttpServlet {

    private static final JsonFactory JSON = new JsonFactory();
    private static final AtomicLong IDS = new AtomicLong();

    final DemoSettings settings;
    private final EndpointShape shape;

    MockEndpoint(DemoSettings settings, EndpointShape shape) {
        this.settings = settings;
        this.shape = shape;
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        byte[] body = request.getInputStream().readAllBytes();
        ChatRequest parsed;
        try {
            parsed = ChatRequest.parse(body, body.length, List.of(), shape);
        } catch (InvalidChatRequestException e) {
            response.sendError(400, e.getMessage());
            return;
        }
        pause(settings.latency());
        answer(parsed, body, response);
    }

    /** Answers an admitted request. */
    abstract void answer(ChatRequest request, byte[] body, HttpServletResponse response) throws IOException;

    /** The configured completion tokens, cut to the request's output cap. */
    long completionTokens(ChatRequest request) {
        return request.maxOutputTokens() >= 0 ? Math.min(request.maxOutputTokens(), settings.completionTokens())
                : settings.completionTokens();
    }

    /** Whether the configured answer is longer than the request's output cap allows. */
    boolean cut(ChatRequest request) {
        return request.maxOutputTokens() >= 0 && request.maxOutputTokens() < settings.completionTokens();
    }

    static String id(String prefix) {
        return prefix + IDS.incrementAndGet();
    }

    static long now() {
        return System.currentTimeMillis() / 1000;
    }

    static void writeJson(HttpServletResponse response, byte[] json) throws IOException {
        response.setContentType("application/json");
        response.setContentLength(json.length);
        response.getOutputStream().write(json);
    }

    static OutputStream startEvents(HttpServletResponse response) throws IOException {
        response.setContentType("text/event-stream");
        response.setCharacterEncoding("UTF-8");
        return response.getOutputStream();
    }

    /** {@code data: <json>} and a blank line. */
    static void event(OutputStream out, byte[] json) throws IOException {
        out.write("data: ".getBytes(StandardCharsets.UTF_8));
        out.write(json);
        out.write("\n\n".getBytes(StandardCharsets.UTF_8));
    }

    /** {@code event: <name>}, {@code data: <json>} and a blank line. */
    static void event(OutputStream out, String name, byte[] json) throws IOException {
        out.write(("event: " + name + "\n").getBytes(StandardCharsets.UTF_8));
        event(out, json);
    }

    /** Flushes an event of a stream and waits the configured pause between chunks. */
    void flushChunk(HttpServletResponse response) throws IOException {
        response.flushBuffer();
        pause(settings.chunkDelay());
    }

    /** The fields an OpenAI chat or legacy completion (or chunk) starts with. */
    static void openAiHeader(JsonGenerator generator, String id, String object, String model) throws IOException {
        generator.writeStartObject();
        generator.writeStringField("id", id);
        generator.writeStringField("object", object);
        generator.writeNumberField("created", now());
        generator.writeStringField("model", model);
    }

    /** OpenAI's usage object with the configured prompt tokens. */
    void openAiUsage(JsonGenerator generator, long completionTokens) throws IOException {
        generator.writeObjectFieldStart("usage");
        generator.writeNumberField("prompt_tokens", settings.promptTokens());
        generator.writeNumberField("completion_tokens", completionTokens);
        generator.writeNumberField("total_tokens", settings.promptTokens() + completionTokens);
        generator.writeEndObject();
    }

    /**
     * Ends an OpenAI chat or legacy-completion stream: the usage chunk ({@code "choices":[]}) when the
     * request asked for it, then {@code data: [DONE]}.
     */
    void endOpenAiStream(HttpServletResponse response, OutputStream out, boolean usage, String id, String object,
                         String model, long completionTokens) throws IOException {
        if (usage) {
            event(out, json(generator -> {
                openAiHeader(generator, id, object, model);
                generator.writeArrayFieldStart("choices");
                generator.writeEndArray();
                openAiUsage(generator, completionTokens);
                generator.writeEndObject();
            }));
        }
        out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
        response.flushBuffer();
    }

    static String content(int words) {
        StringBuilder content = new StringBuilder();
        for (int i = 0; i < words; i++) {
            content.append(word(i));
        }
        return content.toString();
    }

    static String word(int index) {
        String[] words = {"Hello", " from", " the", " demo", " model."};
        return index < words.length ? words[index] : " more";
    }

    static JsonFactory json() {
        return JSON;
    }

    static byte[] json(JsonWriter writer) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JsonGenerator generator = JSON.createGenerator(bytes)) {
            writer.write(generator);
        }
        return bytes.toByteArray();
    }

    private static void pause(Duration duration) {
        if (duration.isZero()) {
            return;
        }
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @FunctionalInterface
    interface JsonWriter {
        void write(JsonGenerator generator) throws IOException;
    }
}
