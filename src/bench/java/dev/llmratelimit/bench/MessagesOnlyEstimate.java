package dev.llmratelimit.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.llmratelimit.usage.TokenCounter;

import java.io.IOException;

/**
 * The yardstick of the prompt estimate's speed: the estimate the filter made before it counted every
 * input field, which read only {@code messages} (the cookbook formula: 3 per message, its string
 * fields, the text of its text parts, 1 for a name, 3 priming the reply). Kept here only to be timed.
 */
final class MessagesOnlyEstimate {

    private static final JsonFactory JSON = new JsonFactory();

    private MessagesOnlyEstimate() {
    }

    static long count(TokenCounter counter, byte[] body, int length) {
        long tokens = 3;
        try (JsonParser p = JSON.createParser(body, 0, length)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return tokens;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                boolean isMessages = p.currentName().equals("messages");
                if (p.nextToken() == JsonToken.START_ARRAY && isMessages) {
                    while (nextElement(p)) {
                        tokens += p.currentToken() == JsonToken.START_OBJECT ? message(counter, p) : 0;
                        p.skipChildren();
                    }
                    return tokens;
                }
                p.skipChildren();
            }
        } catch (IOException e) {
            // the bodies timed here are valid
        }
        return tokens;
    }

    private static long message(TokenCounter counter, JsonParser p) throws IOException {
        long tokens = 3;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (value == JsonToken.VALUE_STRING) {
                tokens += counter.count(p.getText()) + (field.equals("name") ? 1 : 0);
            } else if (value == JsonToken.START_ARRAY && field.equals("content")) {
                while (nextElement(p)) {
                    tokens += textPart(counter, p);
                }
            } else {
                p.skipChildren();
            }
        }
        return tokens;
    }

    private static long textPart(TokenCounter counter, JsonParser p) throws IOException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            p.skipChildren();
            return 0;
        }
        String type = null;
        String text = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            if (p.nextToken() == JsonToken.VALUE_STRING && (field.equals("type") || field.equals("text"))) {
                if (field.equals("type")) {
                    type = p.getText();
                } else {
                    text = p.getText();
                }
            } else {
                p.skipChildren();
            }
        }
        return "text".equals(type) && text != null ? counter.count(text) : 0;
    }

    private static boolean nextElement(JsonParser p) throws IOException {
        JsonToken token = p.nextToken();
        return token != JsonToken.END_ARRAY && token != null;
    }
}
