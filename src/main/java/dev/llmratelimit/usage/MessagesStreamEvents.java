package dev.llmratelimit.usage;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;

/**
 * Anthropic Messages events: {@code message_start} carries the input figures in
 * {@code message.usage}, {@code message_delta} the final {@code usage} (its figures, cumulative,
 * replace those of the start), {@code message_stop} ends the stream. Completion text is the
 * {@code text}, {@code partial_json} and {@code thinking} of {@code content_block_delta} deltas.
 */
final class MessagesStreamEvents implements StreamEvents {

    private final CompletionText text;
    private final long[] figures = UsageFormat.noFigures();
    private boolean sawDelta;
    private boolean broken;
    private Usage usage;
    private long reportedPrompt = -1;

    MessagesStreamEvents(CompletionText text) {
        this.text = text;
    }

    @Override
    public Kind read(byte[] data, int offset, int length) {
        try (JsonParser p = JsonUsageParser.JSON.createParser(data, offset, length)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return Kind.OTHER;
            }
            String type = null;
            long[] reported = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals("type") && value == JsonToken.VALUE_STRING) {
                    type = p.getText();
                } else if (field.equals("usage") && value == JsonToken.START_OBJECT) {
                    reported = figures(p);
                } else if (field.equals("message") && value == JsonToken.START_OBJECT) {
                    reported = messageUsage(p);
                } else if (field.equals("delta") && value == JsonToken.START_OBJECT) {
                    delta(p);
                } else {
                    p.skipChildren();
                }
            }
            if (p.nextToken() != null || type == null) {
                return Kind.OTHER;
            }
            take(type, reported);
            return type.equals("message_stop") ? Kind.END : Kind.OTHER;
        } catch (IOException | RuntimeException e) {
            return Kind.OTHER;
        }
    }

    private void take(String type, long[] reported) {
        boolean start = type.equals("message_start");
        if ((!start && !type.equals("message_delta")) || reported == null) {
            return;
        }
        if (reported.length == 0) {
            broken = true;
        } else {
            for (int i = 0; i < UsageFormat.FIGURES; i++) {
                if (reported[i] != UsageFormat.ABSENT) {
                    figures[i] = reported[i];
                }
            }
        }
        sawDelta |= !start;
        if (!broken && figures[UsageFormat.INPUT] != UsageFormat.ABSENT) {
            Usage soFar = UsageFormat.ANTHROPIC.usage(figures);
            reportedPrompt = soFar.promptTokens();
        }
        // Only the final figures are the usage: the start's output_tokens is a placeholder (1).
        usage = sawDelta && !broken ? UsageFormat.ANTHROPIC.usage(figures) : null;
    }

    /** The figures of the usage object the parser stands on; an empty array when one is invalid. */
    private static long[] figures(JsonParser p) throws IOException {
        long[] read = UsageFormat.noFigures();
        return UsageReader.readInto(p, UsageFormat.ANTHROPIC, read) ? read : new long[0];
    }

    private static long[] messageUsage(JsonParser p) throws IOException {
        long[] found = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            boolean isUsage = p.currentName().equals("usage");
            if (p.nextToken() == JsonToken.START_OBJECT && isUsage) {
                found = figures(p);
            } else {
                p.skipChildren();
            }
        }
        return found;
    }

    private void delta(JsonParser p) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (value == JsonToken.VALUE_STRING
                    && (field.equals("text") || field.equals("partial_json") || field.equals("thinking"))) {
                text.append(p.getText());
            } else {
                p.skipChildren();
            }
        }
    }

    @Override
    public Usage usage() {
        return usage;
    }

    /** {@code message_start}'s input figures: input, cache reads and cache writes. */
    @Override
    public long reportedPromptTokens() {
        return reportedPrompt;
    }
}
