package dev.llmratelimit.demo;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.llmratelimit.chat.ChatRequest;
import dev.llmratelimit.usage.EndpointShape;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.io.OutputStream;

/**
 * A stand-in for the application's chat-completion endpoint, answering like the OpenAI API (field by
 * field, so the SDKs' stream helpers and accumulators work on it): JSON, or server-sent events with a
 * usage chunk only when the request asks for {@code stream_options.include_usage}.
 */
public final class MockChatServlet extends MockEndpoint {

    MockChatServlet(DemoSettings settings) {
        super(settings, EndpointShape.CHAT);
    }

    @Override
    void answer(ChatRequest chat, byte[] body, HttpServletResponse response) throws IOException {
        // As before the other shapes came: max_tokens, when set, is exactly the completion.
        long completionTokens = chat.maxOutputTokens() >= 0 ? chat.maxOutputTokens() : settings.completionTokens();
        String id = id("chatcmpl-demo-");
        if (chat.stream()) {
            stream(response, chat, id, completionTokens);
        } else {
            byte[] json = json(generator -> {
                openAiHeader(generator, id, "chat.completion", chat.model());
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
                openAiUsage(generator, completionTokens);
                generator.writeEndObject();
            });
            writeJson(response, json);
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
        OutputStream out = startEvents(response);
        boolean usage = chat.includeUsage();
        event(out, chunk(id, chat.model(), usage, generator -> {
            generator.writeStringField("role", "assistant");
            generator.writeStringField("content", "");
            generator.writeNullField("refusal");
        }, null));
        for (int i = 0; i < settings.streamChunks(); i++) {
            String word = word(i);
            event(out, chunk(id, chat.model(), usage, generator -> generator.writeStringField("content", word), null));
            flushChunk(response);
        }
        event(out, chunk(id, chat.model(), usage, generator -> { }, "stop"));
        endOpenAiStream(response, out, usage, id, "chat.completion.chunk", chat.model(), completionTokens);
    }

    private static byte[] chunk(String id, String model, boolean usageNull, JsonWriter delta, String finishReason)
            throws IOException {
        return json(generator -> {
            openAiHeader(generator, id, "chat.completion.chunk", model);
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
}
