package dev.llmratelimit.policy;

import java.util.Map;

/**
 * One model as configured: its capacity per window and its per-model overrides.
 *
 * @param rpm requests per window, 0 when not configured
 * @param tpm tokens per window, 0 when not configured
 * @param saturationThreshold per-model threshold, or {@code null} for the global one
 * @param reservations per-model reservations; they replace the global ones of the same priority
 * @param expectedOutputTokens per-model starting expectation of completion tokens ({@code reserve}),
 *                             or {@code null} for the global one
 */
public record ModelGroup(String name, long rpm, long tpm, Double saturationThreshold,
                         Map<String, Reservation> reservations, Long expectedOutputTokens) {

    public ModelGroup {
        reservations = Map.copyOf(reservations);
    }

    public boolean isLimited() {
        return rpm > 0 || tpm > 0;
    }
}
