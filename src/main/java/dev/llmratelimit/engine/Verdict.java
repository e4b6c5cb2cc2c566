package dev.llmratelimit.engine;

/**
 * The answer of a store for one plan. The request and token figures are the headers' (SPEC
 * docs/errors.md): those of the tightest model or pool limit enforced, -1 where the model does not
 * limit that dimension; a refusal by the model or pool sets only the refusing dimension, a refusal
 * by another group neither.
 *
 * @param refusal     the first limit that failed, {@code null} when admitted
 * @param strict      whether pool limits were enforced (saturation at or above the threshold)
 * @param saturation  the model's saturation before this request
 * @param resetMillis admitted: milliseconds until the model's window ends; refused: until the
 *                    refusal would clear if no other request came
 * @param budget      the tightest budget and a reached soft budget ({@link BudgetFigures#NONE} without budgets)
 */
public record Verdict(Refusal refusal, boolean strict, double saturation,
                      long requestLimit, long requestRemaining, long tokenLimit, long tokenRemaining,
                      long resetMillis, BudgetFigures budget) {

    public Verdict {
        if (budget == null) {
            budget = BudgetFigures.NONE;
        }
    }

    public Verdict(Refusal refusal, boolean strict, double saturation, long requestLimit, long requestRemaining,
                   long tokenLimit, long tokenRemaining, long resetMillis) {
        this(refusal, strict, saturation, requestLimit, requestRemaining, tokenLimit, tokenRemaining, resetMillis,
                BudgetFigures.NONE);
    }

    public boolean admitted() {
        return refusal == null;
    }

    /** The model or pool limit that refused; {@code null} when admitted or refused by another group. */
    public Limit refusedBy() {
        return refusal == null ? null : refusal.modelLimit();
    }

    /** Whole seconds until the refusal clears (or the window resets), at least 1, as {@code retry-after} wants it. */
    public long retryAfterSeconds() {
        return refusal != null ? refusal.retryAfterSeconds() : Math.max(1, (resetMillis + 999) / 1000);
    }
}
