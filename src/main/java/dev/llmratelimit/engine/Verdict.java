package dev.llmratelimit.engine;

/**
 * The answer of a store for one request. The request and token figures are those of the tightest
 * limit enforced for the request; -1 where the model does not limit that dimension. A refusal sets
 * only the refusing limit's dimension (its limit and what remained of it).
 *
 * @param refusedBy  the limit that refused the request, {@code null} when admitted
 * @param strict     whether pool limits were enforced (saturation at or above the threshold)
 * @param saturation the model's saturation before this request
 * @param resetMillis milliseconds until the current window ends
 */
public record Verdict(boolean admitted, Limit refusedBy, boolean strict, double saturation,
                      long requestLimit, long requestRemaining, long tokenLimit, long tokenRemaining,
                      long resetMillis) {

    /** Whole seconds until the window resets, at least 1, as {@code retry-after} wants it. */
    public long retryAfterSeconds() {
        return Math.max(1, (resetMillis + 999) / 1000);
    }
}
