package dev.llmratelimit.demo;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.llmratelimit.chat.ChatRequest;
import dev.llmratelimit.usage.EndpointShape;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Base64;

/**
 * A stand-in for OpenAI's {@code /v1/embeddings}: a {@code list} with one {@code embedding} per
 * input (a string or token array counts one, an array of them one each) of
 * {@value #DIMENSIONS} floats, or their little-endian float32 bytes in Base64 for
 * {@code "encoding_format":"base64"}; usage {@code prompt_tokens} and {@code total_tokens} (no
 * completion). Embeddings have no stream.
 */
final class MockEmbeddingsServlet extends MockEndpoint {

    static final int DIMENSIONS = 8;

    MockEmbeddingsServlet(DemoSettings settings) {
        super(settings, EndpointShape.EMBEDDINGS);
    }

    @Override
    void answer(ChatRequest request, byte[] body, HttpServletResponse response) throws IOException {
        Inputs inputs = inputs(body);
        writeJson(response, json(generator -> {
            generator.writeStartObject();
            generator.writeStringField("object", "list");
            generator.writeArrayFieldStart("data");
            for (int i = 0; i < inputs.count; i++) {
                generator.writeStartObject();
                generator.writeStringField("object", "embedding");
                generator.writeNumberField("index", i);
                generator.writeFieldName("embedding");
                embedding(generator, i, inputs.base64);
                generator.writeEndObject();
            }
            generator.writeEndArray();
            generator.writeStringField("model", request.model());
            generator.writeObjectFieldStart("usage");
            generator.writeNumberField("prompt_tokens", settings.promptTokens());
            generator.writeNumberField("total_tokens", settings.promptTokens());
            generator.writeEndObject();
            generator.writeEndObject();
        }));
    }

    private static void embedding(JsonGenerator generator, int index, boolean base64) throws IOException {
        float[] vector = new float[DIMENSIONS];
        for (int d = 0; d < DIMENSIONS; d++) {
            vector[d] = (index + 1) * 0.125f - d * 0.0625f;
        }
        if (base64) {
            ByteBuffer bytes = ByteBuffer.allocate(DIMENSIONS * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            for (float value : vector) {
                bytes.putFloat(value);
            }
            generator.writeString(Base64.getEncoder().encodeToString(bytes.array()));
            return;
        }
        generator.writeStartArray();
        for (float value : vector) {
            generator.writeNumber(value);
        }
        generator.writeEndArray();
    }

    private record Inputs(int count, boolean base64) {
    }

    /** How many embeddings the body asks for, and in which encoding. */
    private static Inputs inputs(byte[] body) throws IOException {
        int count = 1;
        boolean base64 = false;
        try (JsonParser p = json().createParser(body)) {
            p.nextToken();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals("input") && value == JsonToken.START_ARRAY) {
                    count = arrayInputs(p);
                } else if (field.equals("encoding_format") && value == JsonToken.VALUE_STRING) {
                    base64 = p.getText().equals("base64");
                } else {
                    p.skipChildren();
                }
            }
        }
        return new Inputs(count, base64);
    }

    /** An array of strings or of token arrays is one input per element; an array of token ids is one input. */
    private static int arrayInputs(JsonParser p) throws IOException {
        int elements = 0;
        boolean tokenIds = false;
        JsonToken element;
        while ((element = p.nextToken()) != JsonToken.END_ARRAY && element != null) {
            elements++;
            tokenIds |= element == JsonToken.VALUE_NUMBER_INT;
            p.skipChildren();
        }
        return tokenIds ? 1 : Math.max(1, elements);
    }
}
