package dev.llmratelimit.usage;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;

/**
 * Responses API events ({@code {"type":"response.output_text.delta","delta":"..."}}, ...): the usage
 * is in the {@code response} of the last event, {@code response.completed} (or
 * {@code response.incomplete} / {@code response.failed}); there is no {@code [DONE]}. Completion text
 * is the {@code delta} of every {@code *.delta} event but raw audio.
 */
final class ResponsesStreamEvents implements StreamEvents {

    private final CompletionText text;
    private Usage usage;
    private long reportedPrompt = -1;

    ResponsesStreamEvents(CompletionText text) {
        this.text = text;
    }

    @Override
    public Kind read(byte[] data, int offset, int length) {
        try (JsonParser p = JsonUsageParser.JSON.createParser(data, offset, length)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return Kind.OTHER;
            }
            String type = null;
            String delta = null;
            Usage reported = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals("type") && value == JsonToken.VALUE_STRING) {
                    type = p.getText();
                } else if (field.equals("delta") && value == JsonToken.VALUE_STRING) {
                    delta = p.getText();
                } else if (field.equals("response") && value == JsonToken.START_OBJECT) {
                    reported = usageOf(p);
                } else {
                    p.skipChildren();
                }
            }
            if (p.nextToken() != null || type == null) {
                return Kind.OTHER;
            }
            if (delta != null && type.endsWith(".delta") && !type.equals("response.audio.delta")) {
                text.append(delta);
            }
            boolean end = type.equals("response.completed") || type.equals("response.incomplete")
                    || type.equals("response.failed");
            if (reported != null) {
                reportedPrompt = reported.promptTokens();
            }
            if (end && reported != null) {
                usage = reported;
            }
            return end ? Kind.END : Kind.OTHER;
        } catch (IOException | RuntimeException e) {
            return Kind.OTHER;
        }
    }

    /** The usage of the response object the parser stands on, read to its end. */
    private static Usage usageOf(JsonParser p) throws IOException {
        Usage found = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            boolean isUsage = p.currentName().equals("usage");
            if (p.nextToken() == JsonToken.START_OBJECT && isUsage) {
                found = UsageReader.read(p, UsageFormat.RESPONSES);
            } else {
                p.skipChildren();
            }
        }
        return found;
    }

    @Override
    public Usage usage() {
        return usage;
    }

    /** The input figure of any event's {@code response.usage} ({@code response.created}, {@code response.in_progress}). */
    @Override
    public long reportedPromptTokens() {
        return reportedPrompt;
    }
}
