package dev.llmratelimit.http;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.Dimension;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An error answer as the client sees it, independent of the server API that sends it (servlet
 * filter or JAX-RS): status, headers and an OpenAI-compatible JSON body ({@code application/json}).
 *
 * @param headers in the order they are to be set, unmodifiable
 * @param type    the body's {@code error.type}
 * @param code    the body's {@code error.code}
 * @param message the body's {@code error.message}
 */
public record ErrorResponse(int status, Map<String, String> headers, String type, String code, String message) {

    public static final String CONTENT_TYPE = "application/json";

    public static ErrorResponse of(int status, String type, String code, String message) {
        return new ErrorResponse(status, Map.of(), type, code, message);
    }

    /** {@code {"error":{"message":..,"type":..,"param":null,"code":..}}} */
    public String body() {
        return OpenAiErrors.body(type, code, message);
    }

    /**
     * The answer to an admission that does not permit the call: the 429 of SPEC section 6 for a
     * refusal, 404 for an unknown model under {@code reject-unknown-models}, 503 for a failed store
     * under {@code on-store-failure=fail-closed}.
     */
    public static ErrorResponse refusal(Admission admission) {
        return switch (admission.outcome()) {
            case REFUSED -> {
                Map<String, String> headers = new LinkedHashMap<>();
                RateLimitHeaderValues.refused(admission, headers::put);
                if (admission.refusal().dimension() == Dimension.MONEY) {
                    yield new ErrorResponse(429, Collections.unmodifiableMap(headers), BudgetTexts.BUDGET_EXCEEDED, "429",
                            BudgetTexts.exceeded(admission.refusal()));
                }
                String message = RefusalMessages.of(admission.plan(), admission.verdict());
                yield new ErrorResponse(429, Collections.unmodifiableMap(headers), OpenAiErrors.THROTTLING, "429", message);
            }
            case UNPRICED_MODEL -> of(400, OpenAiErrors.INVALID_REQUEST, BudgetTexts.PRICE_UNKNOWN,
                    BudgetTexts.unpriced(admission.model()));
            case UNKNOWN_MODEL -> of(404, OpenAiErrors.INVALID_REQUEST, "model_not_found", "The model is not served here");
            default -> new ErrorResponse(503, Map.of("retry-after", "1"), "service_unavailable", "503",
                    "Rate limiter unavailable; try again shortly");
        };
    }
}
