package dev.llmratelimit.http;

/**
 * Anthropic-compatible error bodies, {@code {"type":"error","error":{"type":..,"message":..}}}, so the
 * Anthropic SDKs raise their own exceptions (a 429 their rate-limit error). The error type follows the
 * status as Anthropic's API sets it.
 */
public final class AnthropicErrors {

    private AnthropicErrors() {
    }

    public static String body(int status, String message) {
        return "{\"type\":\"error\",\"error\":{\"type\":" + OpenAiErrors.quote(type(status))
                + ",\"message\":" + OpenAiErrors.quote(message) + "}}";
    }

    static String type(int status) {
        return switch (status) {
            case 400 -> "invalid_request_error";
            case 401 -> "authentication_error";
            case 403 -> "permission_error";
            case 404 -> "not_found_error";
            case 413 -> "request_too_large";
            case 429 -> "rate_limit_error";
            case 529 -> "overloaded_error";
            default -> "api_error";
        };
    }
}
