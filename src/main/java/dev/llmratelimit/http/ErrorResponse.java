package dev.llmratelimit.http;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.Refusal;
import dev.llmratelimit.usage.EndpointShape;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An error answer as the client sees it, independent of the server API that sends it (servlet
 * filter or JAX-RS): status, headers and a JSON body ({@code application/json}), OpenAI-compatible
 * unless it answers an Anthropic Messages request.
 *
 * @param headers   in the order they are to be set, unmodifiable
 * @param type      the body's {@code error.type} (OpenAI shape)
 * @param code      the body's {@code error.code} (OpenAI shape)
 * @param message   the body's {@code error.message}
 * @param anthropic whether the body has Anthropic's shape ({@link AnthropicErrors})
 */
public record ErrorResponse(int status, Map<String, String> headers, String type, String code, String message,
                            boolean anthropic) {

    public static final String CONTENT_TYPE = "application/json";

    /** An answer with an OpenAI-compatible body. */
    public ErrorResponse(int status, Map<String, String> headers, String type, String code, String message) {
        this(status, headers, type, code, message, false);
    }

    public static ErrorResponse of(int status, String type, String code, String message) {
        return new ErrorResponse(status, Map.of(), type, code, message);
    }

    /**
     * The same answer with the body the clients of that endpoint shape understand; on
     * {@code /v1/messages} the limits' headers also under Anthropic's names.
     */
    public ErrorResponse forShape(EndpointShape shape) {
        boolean messages = shape == EndpointShape.MESSAGES;
        return new ErrorResponse(status, messages ? RateLimitHeaderValues.withAnthropicNames(headers) : headers, type, code,
                message, messages);
    }

    /**
     * OpenAI's {@code {"error":{"message":..,"type":..,"param":null,"code":..}}}, or Anthropic's
     * {@code {"type":"error","error":{"type":..,"message":..}}}.
     */
    public String body() {
        return anthropic ? AnthropicErrors.body(status, message) : OpenAiErrors.body(type, code, message);
    }

    /**
     * The answer to an admission that does not permit the call: the 429 of docs/errors.md for a
     * refusal (its body in the given style), 404 for an unknown model under
     * {@code reject-unknown-models}, 503 for a failed store under {@code on-store-failure=fail-closed}.
     */
    public static ErrorResponse refusal(Admission admission, ErrorStyle style) {
        return switch (admission.outcome()) {
            case REFUSED -> rateLimited(admission, style);
            case UNPRICED_MODEL -> of(400, OpenAiErrors.INVALID_REQUEST, BudgetTexts.PRICE_UNKNOWN,
                    BudgetTexts.unpriced(admission.model()));
            case UNKNOWN_MODEL -> of(404, OpenAiErrors.INVALID_REQUEST, "model_not_found", "The model is not served here");
            default -> new ErrorResponse(503, Map.of("retry-after", "1"), "service_unavailable", "503",
                    "Rate limiter unavailable; try again shortly");
        };
    }

    /**
     * The answer when the limiter failed on a request and {@code on-internal-error=fail-closed}: 503,
     * try again in a second. Never a 500: that would read as the application's own failure.
     */
    public static ErrorResponse internalError() {
        return new ErrorResponse(503, Map.of("retry-after", "1"), "service_unavailable", "rate_limiter_error",
                "The rate limiter failed on this request; try again shortly");
    }

    private static ErrorResponse rateLimited(Admission admission, ErrorStyle style) {
        Map<String, String> headers = new LinkedHashMap<>();
        RateLimitHeaderValues.refused(admission, headers::put);
        Refusal refusal = admission.refusal();
        if (refusal.dimension() == Dimension.MONEY) {
            // docs/budgets.md gives budgets one body, whatever error-style says.
            return new ErrorResponse(429, Collections.unmodifiableMap(headers), BudgetTexts.BUDGET_EXCEEDED, "429",
                    BudgetTexts.exceeded(admission.plan(), refusal));
        }
        String message = RefusalMessages.of(admission.plan(), admission.verdict());
        if (style == ErrorStyle.LITELLM) {
            return new ErrorResponse(429, Collections.unmodifiableMap(headers), OpenAiErrors.THROTTLING, "429", message);
        }
        boolean tokens = refusal.dimension().isTokens();
        long waitMillis = refusal.dimension() == Dimension.PARALLEL_REQUESTS ? 1000 : refusal.resetMillis();
        return new ErrorResponse(429, Collections.unmodifiableMap(headers), tokens ? "tokens" : "requests",
                OpenAiErrors.RATE_LIMIT_EXCEEDED, message + ". Please try again in " + GoDuration.format(waitMillis) + ".");
    }
}
