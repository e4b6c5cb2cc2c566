package dev.llmratelimit.demo;

import dev.llmratelimit.chat.ChatRequest;
import dev.llmratelimit.usage.EndpointShape;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.io.OutputStream;

/**
 * A stand-in for OpenAI's legacy {@code /v1/completions}: a {@code text_completion} with
 * {@code choices[].text}, or a stream of {@code text_completion} chunks (the last one with its
 * {@code finish_reason}), a usage chunk with {@code "choices":[]} when the request asks for
 * {@code stream_options.include_usage}, then {@code data: [DONE]}.
 */
final class MockCompletionsServlet extends MockEndpoint {

    private static final String OBJECT = "text_completion";

    MockCompletionsServlet(DemoSettings settings) {
        super(settings, EndpointShape.COMPLETIONS);
    }

    @Override
    void answer(ChatRequest request, byte[] body, HttpServletResponse response) throws IOException {
        String id = id("cmpl-demo-");
        long completionTokens = completionTokens(request);
        String finishReason = cut(request) ? "length" : "stop";
        if (!request.stream()) {
            writeJson(response, json(generator -> {
                openAiHeader(generator, id, OBJECT, request.model());
                choices(generator, content(settings.streamChunks()), finishReason);
                openAiUsage(generator, completionTokens);
                generator.writeEndObject();
            }));
            return;
        }
        OutputStream out = startEvents(response);
        boolean usage = request.includeUsage();
        for (int i = 0; i <= settings.streamChunks(); i++) {
            boolean last = i == settings.streamChunks();
            String text = last ? "" : word(i);
            event(out, json(generator -> {
                openAiHeader(generator, id, OBJECT, request.model());
                choices(generator, text, last ? finishReason : null);
                if (usage) {
                    generator.writeNullField("usage");
                }
                generator.writeEndObject();
            }));
            flushChunk(response);
        }
        endOpenAiStream(response, out, usage, id, OBJECT, request.model(), completionTokens);
    }

    private static void choices(com.fasterxml.jackson.core.JsonGenerator generator, String text, String finishReason)
            throws IOException {
        generator.writeArrayFieldStart("choices");
        generator.writeStartObject();
        generator.writeStringField("text", text);
        generator.writeNumberField("index", 0);
        generator.writeNullField("logprobs");
        generator.writeStringField("finish_reason", finishReason);
        generator.writeEndObject();
        generator.writeEndArray();
    }
}
