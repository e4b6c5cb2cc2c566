package dev.llmratelimit.demo;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.llmratelimit.chat.ChatRequest;
import dev.llmratelimit.usage.EndpointShape;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.io.OutputStream;

/**
 * A stand-in for OpenAI's Responses API {@code /v1/responses}: a {@code response} object with one
 * assistant {@code message} of {@code output_text}, or its event stream as OpenAI sends it
 * ({@code response.created}, {@code response.in_progress}, {@code response.output_item.added},
 * {@code response.content_part.added}, one {@code response.output_text.delta} per word, the
 * {@code .done} events, then {@code response.completed} with the usage; no {@code [DONE]}). An answer
 * cut by {@code max_output_tokens} is {@code "status":"incomplete"} ({@code response.incomplete}).
 */
final class MockResponsesServlet extends MockEndpoint {

    MockResponsesServlet(DemoSettings settings) {
        super(settings, EndpointShape.RESPONSES);
    }

    /** One answer being written: its ids, text and figures. */
    private final class Answer {
        final String id = id("resp_demo_");
        final String messageId = id("msg_demo_");
        final long created = now();
        final ChatRequest request;
        final String text = content(settings.streamChunks());
        final long completionTokens;
        final boolean incomplete;
        int sequence;

        Answer(ChatRequest request) {
            this.request = request;
            this.completionTokens = completionTokens(request);
            this.incomplete = cut(request);
        }

        String finalStatus() {
            return incomplete ? "incomplete" : "completed";
        }

        void response(JsonGenerator g, String status, boolean done) throws IOException {
            g.writeStartObject();
            g.writeStringField("id", id);
            g.writeStringField("object", "response");
            g.writeNumberField("created_at", created);
            g.writeStringField("status", status);
            g.writeNullField("error");
            if (done && incomplete) {
                g.writeObjectFieldStart("incomplete_details");
                g.writeStringField("reason", "max_output_tokens");
                g.writeEndObject();
            } else {
                g.writeNullField("incomplete_details");
            }
            g.writeNullField("instructions");
            if (request.maxTokens() >= 0) {
                g.writeNumberField("max_output_tokens", request.maxTokens());
            } else {
                g.writeNullField("max_output_tokens");
            }
            g.writeStringField("model", request.model());
            g.writeArrayFieldStart("output");
            if (done) {
                message(g, "completed", text);
            }
            g.writeEndArray();
            g.writeBooleanField("parallel_tool_calls", true);
            g.writeNullField("previous_response_id");
            g.writeObjectFieldStart("reasoning");
            g.writeNullField("effort");
            g.writeNullField("summary");
            g.writeEndObject();
            g.writeBooleanField("store", false);
            g.writeNumberField("temperature", 1.0);
            g.writeObjectFieldStart("text");
            g.writeObjectFieldStart("format");
            g.writeStringField("type", "text");
            g.writeEndObject();
            g.writeEndObject();
            g.writeStringField("tool_choice", "auto");
            g.writeArrayFieldStart("tools");
            g.writeEndArray();
            g.writeNumberField("top_p", 1.0);
            g.writeStringField("truncation", "disabled");
            if (done) {
                usage(g);
            } else {
                g.writeNullField("usage");
            }
            g.writeNullField("user");
            g.writeObjectFieldStart("metadata");
            g.writeEndObject();
            g.writeEndObject();
        }

        void message(JsonGenerator g, String status, String content) throws IOException {
            g.writeStartObject();
            g.writeStringField("id", messageId);
            g.writeStringField("type", "message");
            g.writeStringField("status", status);
            g.writeStringField("role", "assistant");
            g.writeArrayFieldStart("content");
            if (content != null) {
                part(g, content);
            }
            g.writeEndArray();
            g.writeEndObject();
        }

        void part(JsonGenerator g, String content) throws IOException {
            g.writeStartObject();
            g.writeStringField("type", "output_text");
            g.writeStringField("text", content);
            g.writeArrayFieldStart("annotations");
            g.writeEndArray();
            g.writeEndObject();
        }

        void usage(JsonGenerator g) throws IOException {
            g.writeObjectFieldStart("usage");
            g.writeNumberField("input_tokens", settings.promptTokens());
            g.writeObjectFieldStart("input_tokens_details");
            g.writeNumberField("cached_tokens", 0);
            g.writeEndObject();
            g.writeNumberField("output_tokens", completionTokens);
            g.writeObjectFieldStart("output_tokens_details");
            g.writeNumberField("reasoning_tokens", 0);
            g.writeEndObject();
            g.writeNumberField("total_tokens", settings.promptTokens() + completionTokens);
            g.writeEndObject();
        }

        /** One event: {@code event: <type>} and its data with {@code type} and {@code sequence_number} first. */
        void event(OutputStream out, String type, JsonWriter fields) throws IOException {
            int number = sequence++;
            MockEndpoint.event(out, type, json(g -> {
                g.writeStartObject();
                g.writeStringField("type", type);
                g.writeNumberField("sequence_number", number);
                fields.write(g);
                g.writeEndObject();
            }));
        }

        void itemFields(JsonGenerator g) throws IOException {
            g.writeStringField("item_id", messageId);
            g.writeNumberField("output_index", 0);
            g.writeNumberField("content_index", 0);
        }
    }

    @Override
    void answer(ChatRequest request, byte[] body, HttpServletResponse response) throws IOException {
        Answer answer = new Answer(request);
        if (!request.stream()) {
            writeJson(response, json(g -> answer.response(g, answer.finalStatus(), true)));
            return;
        }
        OutputStream out = startEvents(response);
        answer.event(out, "response.created", g -> {
            g.writeFieldName("response");
            answer.response(g, "in_progress", false);
        });
        answer.event(out, "response.in_progress", g -> {
            g.writeFieldName("response");
            answer.response(g, "in_progress", false);
        });
        answer.event(out, "response.output_item.added", g -> {
            g.writeNumberField("output_index", 0);
            g.writeFieldName("item");
            answer.message(g, "in_progress", null);
        });
        answer.event(out, "response.content_part.added", g -> {
            answer.itemFields(g);
            g.writeFieldName("part");
            answer.part(g, "");
        });
        flushChunk(response);
        for (int i = 0; i < settings.streamChunks(); i++) {
            String word = word(i);
            answer.event(out, "response.output_text.delta", g -> {
                answer.itemFields(g);
                g.writeStringField("delta", word);
                g.writeArrayFieldStart("logprobs");
                g.writeEndArray();
            });
            flushChunk(response);
        }
        answer.event(out, "response.output_text.done", g -> {
            answer.itemFields(g);
            g.writeStringField("text", answer.text);
            g.writeArrayFieldStart("logprobs");
            g.writeEndArray();
        });
        answer.event(out, "response.content_part.done", g -> {
            answer.itemFields(g);
            g.writeFieldName("part");
            answer.part(g, answer.text);
        });
        answer.event(out, "response.output_item.done", g -> {
            g.writeNumberField("output_index", 0);
            g.writeFieldName("item");
            answer.message(g, "completed", answer.text);
        });
        answer.event(out, "response." + answer.finalStatus(), g -> {
            g.writeFieldName("response");
            answer.response(g, answer.finalStatus(), true);
        });
        response.flushBuffer();
    }
}
