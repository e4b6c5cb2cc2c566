package dev.llmratelimit.usage;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.util.function.Consumer;

/**
 * The parts of one {@code chat.completion.chunk} or legacy {@code text_completion} chunk (the JSON of
 * an SSE data field) that matter here.
 *
 * @param usageOnly the chunk that {@code include_usage} adds: a {@code usage} object and {@code "choices":[]}
 * @param usage     its usage if usable, else null
 */
record StreamChunk(boolean usageOnly, Usage usage) {

    /**
     * Parses the chunk and appends the completion text it carries ({@code choices[].delta.content},
     * {@code .refusal} and {@code .tool_calls[].function.arguments}; a legacy completion's
     * {@code choices[].text}) to {@code text}, unless it is {@code null}, piece by piece. Returns null when
     * the data is not one well-formed JSON object.
     */
    static StreamChunk parse(byte[] data, int offset, int length, Consumer<String> text) {
        try (JsonParser p = JsonUsageParser.JSON.createParser(data, offset, length)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            boolean usageObject = false;
            Usage usage = null;
            int choices = -1;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals("usage") && value == JsonToken.START_OBJECT) {
                    usageObject = true;
                    usage = UsageReader.read(p, UsageFormat.OPENAI);
                } else if (field.equals("choices") && value == JsonToken.START_ARRAY) {
                    choices = choices(p, text);
                } else {
                    p.skipChildren();
                }
            }
            return p.nextToken() == null ? new StreamChunk(usageObject && choices == 0, usage) : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Returns the number of choices. */
    private static int choices(JsonParser p, Consumer<String> text) throws IOException {
        int count = 0;
        while (nextElement(p)) {
            count++;
            if (p.currentToken() == JsonToken.START_OBJECT) {
                choice(p, text);
            } else {
                p.skipChildren();
            }
        }
        return count;
    }

    private static void choice(JsonParser p, Consumer<String> text) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (value == JsonToken.START_OBJECT && field.equals("delta")) {
                delta(p, text);
            } else if (value == JsonToken.VALUE_STRING && field.equals("text")) {
                collect(p, text);
            } else {
                p.skipChildren();
            }
        }
    }

    private static void delta(JsonParser p, Consumer<String> text) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (value == JsonToken.VALUE_STRING && (field.equals("content") || field.equals("refusal"))) {
                collect(p, text);
            } else if (value == JsonToken.START_ARRAY && field.equals("tool_calls")) {
                while (nextElement(p)) {
                    if (p.currentToken() == JsonToken.START_OBJECT) {
                        objectField(p, "function", () -> functionArguments(p, text));
                    } else {
                        p.skipChildren();
                    }
                }
            } else {
                p.skipChildren();
            }
        }
    }

    private static void functionArguments(JsonParser p, Consumer<String> text) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            boolean isArguments = p.currentName().equals("arguments");
            if (p.nextToken() == JsonToken.VALUE_STRING && isArguments) {
                collect(p, text);
            }
            p.skipChildren();
        }
    }

    /** Appends the string the parser stands on to the text, if the text is wanted. */
    private static void collect(JsonParser p, Consumer<String> text) throws IOException {
        if (text != null) {
            text.accept(p.getText());
        }
    }

    private interface ObjectReader {
        /** Reads the object the parser stands on, up to its END_OBJECT. */
        void read() throws IOException;
    }

    /** Walks the fields of the current object, handing the object value of field {@code name} to {@code reader}. */
    private static void objectField(JsonParser p, String name, ObjectReader reader) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            boolean wanted = p.currentName().equals(name);
            if (p.nextToken() == JsonToken.START_OBJECT && wanted) {
                reader.read();
            } else {
                p.skipChildren();
            }
        }
    }

    private static boolean nextElement(JsonParser p) throws IOException {
        JsonToken token = p.nextToken();
        return token != JsonToken.END_ARRAY && token != null;
    }
}
