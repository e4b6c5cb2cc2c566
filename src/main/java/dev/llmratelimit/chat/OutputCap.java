package dev.llmratelimit.chat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.llmratelimit.usage.EndpointShape;

import java.io.IOException;

/**
 * The output cap of one request body as its endpoint shape names it: chat {@code max_completion_tokens}
 * (else {@code max_tokens}) per choice times {@code n}; legacy completions {@code max_tokens} per
 * candidate times the larger of {@code n} and {@code best_of} (the provider generates and charges
 * {@code best_of} candidates); the Responses API {@code max_output_tokens}; Anthropic Messages
 * {@code max_tokens}, required there; embeddings produce no output (0).
 */
final class OutputCap {

    /** The largest {@code n} (and {@code best_of}) the OpenAI API accepts. */
    static final int MAX_CHOICES = 128;

    private final EndpointShape shape;
    private long maxTokens = ChatRequest.NO_MAX_TOKENS;
    private long maxCompletionTokens = ChatRequest.NO_MAX_TOKENS;
    private long choices = 1;

    OutputCap(EndpointShape shape) {
        this.shape = shape;
    }

    /** Takes the value of field {@code name} if it is one of this shape's output fields. */
    void read(String name, JsonParser p, JsonToken value) throws IOException, InvalidChatRequestException {
        switch (shape) {
            case CHAT -> {
                switch (name) {
                    case "max_tokens" -> maxTokens = tokenLimit(p, value);
                    case "max_completion_tokens" -> maxCompletionTokens = tokenLimit(p, value);
                    case "n" -> choices = Math.max(choices, choices(p, value, name));
                    default -> { }
                }
            }
            case COMPLETIONS -> {
                switch (name) {
                    case "max_tokens" -> maxTokens = tokenLimit(p, value);
                    case "n", "best_of" -> choices = Math.max(choices, choices(p, value, name));
                    default -> { }
                }
            }
            case RESPONSES -> {
                if (name.equals("max_output_tokens")) {
                    maxTokens = tokenLimit(p, value);
                }
            }
            case MESSAGES -> {
                if (name.equals("max_tokens")) {
                    maxTokens = tokenLimit(p, value);
                }
            }
            case EMBEDDINGS -> { }
        }
    }

    /** The most output tokens of the whole request, or {@link ChatRequest#NO_MAX_TOKENS}. */
    long maxOutputTokens() throws InvalidChatRequestException {
        if (shape == EndpointShape.EMBEDDINGS) {
            return 0;
        }
        if (shape == EndpointShape.MESSAGES && maxTokens == ChatRequest.NO_MAX_TOKENS) {
            throw new InvalidChatRequestException("The 'max_tokens' field is required: a whole number of tokens.",
                    "max_tokens");
        }
        long perChoice = maxCompletionTokens != ChatRequest.NO_MAX_TOKENS ? maxCompletionTokens : maxTokens;
        if (perChoice == ChatRequest.NO_MAX_TOKENS) {
            return perChoice;
        }
        return perChoice > Long.MAX_VALUE / choices ? Long.MAX_VALUE : perChoice * choices;
    }

    private static long tokenLimit(JsonParser p, JsonToken value) throws IOException {
        if (value != JsonToken.VALUE_NUMBER_INT) {
            return ChatRequest.NO_MAX_TOKENS;
        }
        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            return p.getBigIntegerValue().signum() > 0 ? Long.MAX_VALUE : ChatRequest.NO_MAX_TOKENS;
        }
        long limit = p.getLongValue();
        return limit >= 0 ? limit : ChatRequest.NO_MAX_TOKENS;
    }

    /** {@code n} or {@code best_of}: a whole number from 1 to {@value #MAX_CHOICES}, or null for 1. */
    private static long choices(JsonParser p, JsonToken value, String field) throws IOException, InvalidChatRequestException {
        if (value == JsonToken.VALUE_NULL) {
            return 1;
        }
        if (value != JsonToken.VALUE_NUMBER_INT || p.getNumberType() != JsonParser.NumberType.INT
                || p.getIntValue() < 1 || p.getIntValue() > MAX_CHOICES) {
            throw new InvalidChatRequestException("The '" + field + "' field must be a whole number from 1 to "
                    + MAX_CHOICES + ".", field);
        }
        return p.getIntValue();
    }
}
