package dev.llmratelimit.demo;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.llmratelimit.chat.ChatRequest;
import dev.llmratelimit.usage.EndpointShape;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.io.OutputStream;

/**
 * A stand-in for Anthropic's Messages API {@code /v1/messages}: a {@code message} with one
 * {@code text} block, {@code stop_reason} {@code end_turn} (or {@code max_tokens} when the request's
 * {@code max_tokens} cuts the configured answer) and Anthropic's usage (the cache figures 0); or its
 * event stream ({@code message_start} with the input usage, {@code content_block_start}, a
 * {@code ping}, one {@code content_block_delta} per word, {@code content_block_stop},
 * {@code message_delta} with the stop reason and the output usage, {@code message_stop}).
 */
final class MockMessagesServlet extends MockEndpoint {

    MockMessagesServlet(DemoSettings settings) {
        super(settings, EndpointShape.MESSAGES);
    }

    @Override
    void answer(ChatRequest request, byte[] body, HttpServletResponse response) throws IOException {
        String id = id("msg_demo_");
        long outputTokens = completionTokens(request);
        String stopReason = cut(request) ? "max_tokens" : "end_turn";
        if (!request.stream()) {
            writeJson(response, json(g -> {
                message(g, id, request.model(), true, stopReason);
                usage(g, outputTokens);
                g.writeEndObject();
            }));
            return;
        }
        OutputStream out = startEvents(response);
        event(out, "message_start", json(g -> {
            g.writeStartObject();
            g.writeStringField("type", "message_start");
            g.writeFieldName("message");
            message(g, id, request.model(), false, null);
            usage(g, 1);
            g.writeEndObject();
            g.writeEndObject();
        }));
        event(out, "content_block_start", json(g -> {
            g.writeStartObject();
            g.writeStringField("type", "content_block_start");
            g.writeNumberField("index", 0);
            g.writeObjectFieldStart("content_block");
            g.writeStringField("type", "text");
            g.writeStringField("text", "");
            g.writeEndObject();
            g.writeEndObject();
        }));
        event(out, "ping", json(g -> {
            g.writeStartObject();
            g.writeStringField("type", "ping");
            g.writeEndObject();
        }));
        flushChunk(response);
        for (int i = 0; i < settings.streamChunks(); i++) {
            String word = word(i);
            event(out, "content_block_delta", json(g -> {
                g.writeStartObject();
                g.writeStringField("type", "content_block_delta");
                g.writeNumberField("index", 0);
                g.writeObjectFieldStart("delta");
                g.writeStringField("type", "text_delta");
                g.writeStringField("text", word);
                g.writeEndObject();
                g.writeEndObject();
            }));
            flushChunk(response);
        }
        event(out, "content_block_stop", json(g -> {
            g.writeStartObject();
            g.writeStringField("type", "content_block_stop");
            g.writeNumberField("index", 0);
            g.writeEndObject();
        }));
        event(out, "message_delta", json(g -> {
            g.writeStartObject();
            g.writeStringField("type", "message_delta");
            g.writeObjectFieldStart("delta");
            g.writeStringField("stop_reason", stopReason);
            g.writeNullField("stop_sequence");
            g.writeEndObject();
            g.writeObjectFieldStart("usage");
            g.writeNumberField("output_tokens", outputTokens);
            g.writeEndObject();
            g.writeEndObject();
        }));
        event(out, "message_stop", json(g -> {
            g.writeStartObject();
            g.writeStringField("type", "message_stop");
            g.writeEndObject();
        }));
        response.flushBuffer();
    }

    /** The message's fields up to its usage (left open for it). */
    private void message(JsonGenerator g, String id, String model, boolean withContent, String stopReason)
            throws IOException {
        g.writeStartObject();
        g.writeStringField("id", id);
        g.writeStringField("type", "message");
        g.writeStringField("role", "assistant");
        g.writeStringField("model", model);
        g.writeArrayFieldStart("content");
        if (withContent) {
            g.writeStartObject();
            g.writeStringField("type", "text");
            g.writeStringField("text", content(settings.streamChunks()));
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeStringField("stop_reason", stopReason);
        g.writeNullField("stop_sequence");
    }

    private void usage(JsonGenerator g, long outputTokens) throws IOException {
        g.writeObjectFieldStart("usage");
        g.writeNumberField("input_tokens", settings.promptTokens());
        g.writeNumberField("cache_creation_input_tokens", 0);
        g.writeNumberField("cache_read_input_tokens", 0);
        g.writeNumberField("output_tokens", outputTokens);
        g.writeEndObject();
    }
}
