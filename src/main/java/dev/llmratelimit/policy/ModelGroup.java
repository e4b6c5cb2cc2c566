package dev.llmratelimit.policy;

import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.RateLimit;
import java.util.List;

import java.util.Map;

/**
 * One model as configured: its capacity per window and its per-model overrides.
 *
 * @param limits every limit per window configured for it ({@code rpm}, {@code otpm}, {@code limits.tokens.1d}, ...)
 * @param saturationThreshold per-model threshold, or {@code null} for the global one
 * @param reservations per-model reservations; they replace the global ones of the same priority
 * @param expectedOutputTokens per-model starting expectation of completion tokens ({@code reserve}),
 *                             or {@code null} for the global one
 * @param fairness per-model fairness, or {@code null} for the global one
 */
public record ModelGroup(String name, List<RateLimit> limits, Double saturationThreshold,
                         Map<String, Reservation> reservations, Long expectedOutputTokens, Fairness fairness) {

    public ModelGroup {
        limits = List.copyOf(limits);
        reservations = Map.copyOf(reservations);
    }

    public boolean isLimited() {
        return !limits.isEmpty();
    }

    /** Requests per configured window, 0 when not configured. */
    public long rpm() {
        return ModelPolicy.amountOf(limits, Dimension.REQUESTS);
    }

    /** Tokens per configured window, 0 when not configured. */
    public long tpm() {
        return ModelPolicy.amountOf(limits, Dimension.TOKENS);
    }
}
