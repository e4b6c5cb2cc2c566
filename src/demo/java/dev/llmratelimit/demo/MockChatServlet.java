package dev.llmratelimit.demo;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.llmratelimit.chat.ChatRequest;
import dev.llmratelimit.chat.InvalidChatRequestException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A stand-in for the application's chat-completion endpoint, answering like the OpenAI API (field by
 * field, so the SDKs' stream helpers and accumulators work on it): JSON, or server-sent events with a
 * usage chunk only when the request asks for {@code stream_options.include_usage}.
 */
public final class MockChatServlet extends HttpServlet {

    private static final JsonFactory JSON = new JsonFactory();
    private static final AtomicLong IDS = new AtomicLong();

    private final DemoSettings settings;

    MockChatServlet(DemoSettings settings) {
        this.settings = settings;
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        byte[] body = request.getInputStream().readAllBytes();
        ChatRequest chat;
        try {
            chat = ChatRequest.parse(body, body.length);
        } catch (InvalidChatRequestException e) {
            response.sendError(400, e.getMessage());
            return;
        }
        pause(settings.latency());
        long completionTokens = chat.maxTokens() >= 0 ? chat.maxTokens() : settings.completionTokens();
        String id = "chatcmpl-demo-" + IDS.incrementAndGet();
        if (chat.stream()) {
            stream(response, chat, id, completionTokens);
        } else {
            response.setContentType("application/json");
            byte[] json = json(generator -> {
                header(generator, id, "chat.completion", chat.model());
                generator.writeArrayFieldStart("choices");
                generator.writeStartObject();
                generator.writeNumberField("index", 0);
                generator.writeObjectFieldStart("message");
                generator.writeStringField("role", "assistant");
                generator.writeStringField("content", content(settings.streamChunks()));
                generator.writeNullField("refusal");
                generator.writeArrayFieldStart("annotations");
                generator.writeEndArray();
                generator.writeEndObject();
                generator.writeNullField("logprobs");
                generator.writeStringField("finish_reason", "stop");
                generator.writeEndObject();
                generator.writeEndArray();
                usage(generator, completionTokens);
                generator.writeEndObject();
            });
            response.setContentLength(json.length);
            response.getOutputStream().write(json);
        }
    }

    /**
     * As OpenAI streams: a first chunk with the role and empty content, one chunk per word with
     * {@code "finish_reason":null}, a last chunk {@code "delta":{},"finish_reason":"stop"}; with
     * {@code include_usage} every chunk has {@code "usage":null} and a usage chunk with
     * {@code "choices":[]} follows; then {@code data: [DONE]}.
     */
    private void stream(HttpServletResponse response, ChatRequest chat, String id, long completionTokens)
            throws IOException {
        response.setContentType("text/event-stream");
        response.setCharacterEncoding("UTF-8");
        OutputStream out = response.getOutputStream();
        boolean usage = chat.includeUsage();
        event(out, chunk(id, chat.model(), usage, generator -> {
            generator.writeStringField("role", "assistant");
            generator.writeStringField("content", "");
            generator.writeNullField("refusal");
        }, null));
        for (int i = 0; i < settings.streamChunks(); i++) {
            String word = word(i);
            event(out, chunk(id, chat.model(), usage, generator -> generator.writeStringField("content", word), null));
            response.flushBuffer();
            pause(settings.chunkDelay());
        }
        event(out, chunk(id, chat.model(), usage, generator -> { }, "stop"));
        if (usage) {
            event(out, json(generator -> {
                header(generator, id, "chat.completion.chunk", chat.model());
                generator.writeArrayFieldStart("choices");
                generator.writeEndArray();
                usage(generator, completionTokens);
                generator.writeEndObject();
            }));
        }
        out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
        response.flushBuffer();
    }

    private static byte[] chunk(String id, String model, boolean usageNull, JsonWriter delta, String finishReason)
            throws IOException {
        return json(generator -> {
            header(generator, id, "chat.completion.chunk", model);
            generator.writeArrayFieldStart("choices");
            generator.writeStartObject();
            generator.writeNumberField("index", 0);
            generator.writeObjectFieldStart("delta");
            delta.write(generator);
            generator.writeEndObject();
            generator.writeNullField("logprobs");
            generator.writeStringField("finish_reason", finishReason);          // null writes null
            generator.writeEndObject();
            generator.writeEndArray();
            if (usageNull) {
                generator.writeNullField("usage");
            }
            generator.writeEndObject();
        });
    }

    private static void event(OutputStream out, byte[] json) throws IOException {
        out.write("data: ".getBytes(StandardCharsets.UTF_8));
        out.write(json);
        out.write("\n\n".getBytes(StandardCharsets.UTF_8));
    }

    private static void header(JsonGenerator generator, String id, String object, String model) throws IOException {
        generator.writeStartObject();
        generator.writeStringField("id", id);
        generator.writeStringField("object", object);
        generator.writeNumberField("created", System.currentTimeMillis() / 1000);
        generator.writeStringField("model", model);
    }

    private void usage(JsonGenerator generator, long completionTokens) throws IOException {
        generator.writeObjectFieldStart("usage");
        generator.writeNumberField("prompt_tokens", settings.promptTokens());
        generator.writeNumberField("completion_tokens", completionTokens);
        generator.writeNumberField("total_tokens", settings.promptTokens() + completionTokens);
        generator.writeEndObject();
    }

    private static String content(int words) {
        StringBuilder content = new StringBuilder();
        for (int i = 0; i < words; i++) {
            content.append(word(i));
        }
        return content.toString();
    }

    private static String word(int index) {
        String[] words = {"Hello", " from", " the", " demo", " model."};
        return index < words.length ? words[index] : " more";
    }

    private static byte[] json(JsonWriter writer) throws IOException {
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
    private interface JsonWriter {
        void write(JsonGenerator generator) throws IOException;
    }
}
