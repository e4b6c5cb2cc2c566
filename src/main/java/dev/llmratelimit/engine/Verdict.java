package dev.llmratelimit.engine;

/**
 * The answer of a store for one request. The request and token figures are those of the tightest
 * limit enforced for the request; -1 where the model does not limit that dimension. A refusal sets
 * only the refusing limit's dimension (its limit and what remained of it).
 *
 * @param refusedBy   the limit that refused the request, {@code null} when admitted
 * @param strict      whether pool limits were enforced (saturation at or above the threshold)
 * @param saturation  the model's saturation before this request
 * @param resetMillis admitted: milliseconds until the current window ends; refused: milliseconds
 *                    until the refusal would clear if no other request came (in a fixed window the
 *                    same thing, in a sliding window possibly sooner or later than the window's end)
 * @param windowEnd   the end of the window the decision counted in, on the store's clock: it names
 *                    that window for a later correction ({@link CounterStore#record(DecisionPlan, long, long)})
 */
public record Verdict(boolean admitted, Limit refusedBy, boolean strict, double saturation,
                      long requestLimit, long requestRemaining, long tokenLimit, long tokenRemaining,
                      long resetMillis, long windowEnd) {

    /** A verdict that names no window (for stores and tests that do not correct). */
    public Verdict(boolean admitted, Limit refusedBy, boolean strict, double saturation,
                   long requestLimit, long requestRemaining, long tokenLimit, long tokenRemaining,
                   long resetMillis) {
        this(admitted, refusedBy, strict, saturation, requestLimit, requestRemaining, tokenLimit, tokenRemaining,
                resetMillis, CounterStore.LIVE_WINDOW);
    }

    /** Whole seconds until the refusal clears (or the window resets), at least 1, as {@code retry-after} wants it. */
    public long retryAfterSeconds() {
        return Math.max(1, (resetMillis + 999) / 1000);
    }
}
