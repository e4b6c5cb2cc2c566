package dev.llmratelimit.chat;

import dev.llmratelimit.usage.EndpointShape;

/**
 * Which request field of an endpoint shape plays which part in the decision (docs/endpoints.md): the
 * output cap is chat's {@code max_completion_tokens} or {@code max_tokens} (the larger when both are
 * set), legacy completions' and Anthropic Messages' {@code max_tokens} (required there), the Responses
 * API's {@code max_output_tokens}; the choices are {@code n} (legacy completions also {@code best_of},
 * the candidates the provider generates and charges), times the prompts of a legacy completion's
 * {@code prompt} array (one completion each); embeddings have neither. Other shapes' fields are
 * not read, so a field another API does not have is the application's business.
 */
final class ShapeFields {

    /** The part a field plays. */
    enum Part { MAX_TOKENS, MAX_COMPLETION_TOKENS, CHOICES, PROMPTS, STREAM_OPTIONS, NONE }

    private ShapeFields() {
    }

    static Part of(EndpointShape shape, String field) {
        return switch (field) {
            case "max_tokens" -> shape == EndpointShape.CHAT || shape == EndpointShape.COMPLETIONS
                    || shape == EndpointShape.MESSAGES ? Part.MAX_TOKENS : Part.NONE;
            case "max_completion_tokens" -> shape == EndpointShape.CHAT ? Part.MAX_COMPLETION_TOKENS : Part.NONE;
            case "max_output_tokens" -> shape == EndpointShape.RESPONSES ? Part.MAX_TOKENS : Part.NONE;
            case "n" -> shape == EndpointShape.CHAT || shape == EndpointShape.COMPLETIONS ? Part.CHOICES : Part.NONE;
            case "best_of" -> shape == EndpointShape.COMPLETIONS ? Part.CHOICES : Part.NONE;
            case "prompt" -> shape == EndpointShape.COMPLETIONS ? Part.PROMPTS : Part.NONE;
            case "stream_options" -> shape.hasIncludeUsageOption() ? Part.STREAM_OPTIONS : Part.NONE;
            default -> Part.NONE;
        };
    }

    /** Whether the shape's API refuses a body without an output cap (Anthropic Messages). */
    static boolean requiresMaxTokens(EndpointShape shape) {
        return shape == EndpointShape.MESSAGES;
    }
}
