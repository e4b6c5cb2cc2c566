package dev.llmratelimit.interceptor;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The messages of a chat request that a {@link RateLimited} method takes as an application object
 * (a POJO, record or {@code Map}) rather than a JSON body, written as the JSON body
 * {@link dev.llmratelimit.usage.TokenCounter#promptTokens} estimates, so a stream cut off without
 * usage is charged its prompt here too. Read: {@code messages()}/{@code getMessages()} (or a
 * {@code "messages"} entry), each message's {@code role}, {@code name} and {@code content}: text, or
 * parts with {@code type} and {@code text}. Other fields are not estimated, as in a JSON body.
 */
final class PromptMessages {

    private static final JsonFactory JSON = new JsonFactory();
    private static final Accessors MESSAGES = new Accessors("messages", "getMessages");
    private static final Accessors ROLE = new Accessors("role", "getRole");
    private static final Accessors NAME = new Accessors("name", "getName");
    private static final Accessors CONTENT = new Accessors("content", "getContent");
    private static final Accessors TYPE = new Accessors("type", "getType");
    private static final Accessors TEXT = new Accessors("text", "getText");

    private PromptMessages() {
    }

    /** {@code {"messages":[...]}}, or {@code null} when the request has no list of messages. */
    static byte[] asJson(Object request) {
        if (!(property(request, MESSAGES, "messages") instanceof Iterable<?> messages)) {
            return null;
        }
        ByteArrayOutputStream json = new ByteArrayOutputStream();
        try (JsonGenerator out = JSON.createGenerator(json)) {
            out.writeStartObject();
            out.writeArrayFieldStart("messages");
            for (Object message : messages) {
                if (message != null) {
                    writeMessage(out, message);
                }
            }
            out.writeEndArray();
            out.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);     // a ByteArrayOutputStream does not fail
        }
        return json.toByteArray();
    }

    private static void writeMessage(JsonGenerator out, Object message) throws IOException {
        out.writeStartObject();
        writeText(out, "role", property(message, ROLE, "role"));
        writeText(out, "name", property(message, NAME, "name"));
        Object content = property(message, CONTENT, "content");
        if (content instanceof Iterable<?> parts) {
            out.writeArrayFieldStart("content");
            for (Object part : parts) {
                if (part != null) {
                    out.writeStartObject();
                    writeText(out, "type", property(part, TYPE, "type"));
                    writeText(out, "text", property(part, TEXT, "text"));
                    out.writeEndObject();
                }
            }
            out.writeEndArray();
        } else {
            writeText(out, "content", content);
        }
        out.writeEndObject();
    }

    /** Text and enum-like values (a role) as their text; anything else is left out. */
    private static void writeText(JsonGenerator out, String field, Object value) throws IOException {
        if (value instanceof CharSequence || value instanceof Enum<?>) {
            out.writeStringField(field, value.toString());
        }
    }

    private static Object property(Object target, Accessors accessors, String key) {
        if (target instanceof Map<?, ?> map) {
            return map.get(key);
        }
        if (target instanceof CharSequence || target instanceof Number || target instanceof Boolean) {
            return null;
        }
        return accessors.read(target);
    }
}
