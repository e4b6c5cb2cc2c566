package dev.llmratelimit.engine;

import java.util.Arrays;

/**
 * The answer of a store for one plan. The figures per windowed {@link Dimension} are the headers'
 * (docs/errors.md): those of the tightest model or pool limit enforced, -1 where the model does
 * not limit that dimension; a refusal by the model or pool sets only the refusing dimension, a
 * refusal by another group none.
 *
 * @param refusal     the first limit that failed, {@code null} when admitted
 * @param strict      whether pool limits were enforced (saturation at or above the threshold)
 * @param saturation  the model's saturation before this request
 * @param limits      per {@link Dimension#WINDOWED}, the limit the headers show (-1: none)
 * @param remaining   per {@link Dimension#WINDOWED}, what is left of it
 * @param resetMillis admitted: milliseconds until the model's window ends (the configured one's when
 *                    it has several); refused: until the refusal would clear if no other request came
 * @param budget      the tightest budget and a reached soft budget ({@link BudgetFigures#NONE} without budgets)
 * @param sharing     the pool's work-conserving share as decided (the active pools), {@code null} for a fixed share
 * @param resets      per {@link Dimension#WINDOWED}, milliseconds until the window of the limit shown ends,
 *                    for an admitted verdict whose model has windows of several lengths; {@code null}:
 *                    every dimension's is {@code resetMillis}
 */
public record Verdict(Refusal refusal, boolean strict, double saturation, long[] limits, long[] remaining,
                      long resetMillis, BudgetFigures budget, PoolSharing sharing, long[] resets) {

    public Verdict(Refusal refusal, boolean strict, double saturation, long[] limits, long[] remaining,
                   long resetMillis, BudgetFigures budget, PoolSharing sharing) {
        this(refusal, strict, saturation, limits, remaining, resetMillis, budget, sharing, null);
    }

    public Verdict(Refusal refusal, boolean strict, double saturation, long[] limits, long[] remaining,
                   long resetMillis, BudgetFigures budget) {
        this(refusal, strict, saturation, limits, remaining, resetMillis, budget, null);
    }

    /** The arrays are taken as they are: whoever builds a verdict hands its arrays over and changes them no more. */
    public Verdict {
        if (budget == null) {
            budget = BudgetFigures.NONE;
        }
    }

    /** No figures: every dimension -1. */
    public static long[] noFigures() {
        long[] none = new long[Dimension.WINDOWED.size()];
        Arrays.fill(none, -1);
        return none;
    }

    public boolean admitted() {
        return refusal == null;
    }

    /** The limit the headers show for a windowed dimension, -1 for none. */
    public long limit(Dimension dimension) {
        return limits[dimension.index()];
    }

    public long remaining(Dimension dimension) {
        return remaining[dimension.index()];
    }

    /** Milliseconds until the window of the limit the headers show for a windowed dimension ends (refused: clears). */
    public long resetMillis(Dimension dimension) {
        return resets == null ? resetMillis : resets[dimension.index()];
    }

    public long requestLimit() {
        return limit(Dimension.REQUESTS);
    }

    public long requestRemaining() {
        return remaining(Dimension.REQUESTS);
    }

    public long tokenLimit() {
        return limit(Dimension.TOKENS);
    }

    public long tokenRemaining() {
        return remaining(Dimension.TOKENS);
    }

    /** This verdict with its refusal moved to another index of a larger plan and other budget figures. */
    public Verdict remapped(int[] planIndexes, BudgetFigures otherBudget) {
        Refusal moved = refusal == null ? null : refusal.at(planIndexes[refusal.index()], refusal.resetMillis());
        return new Verdict(moved, strict, saturation, limits, remaining, resetMillis, otherBudget, sharing, resets);
    }

    /** The model or pool limit that refused; {@code null} when admitted or refused by another group. */
    public Limit refusedBy() {
        return refusal == null ? null : refusal.modelLimit();
    }

    /** Whole seconds until the refusal clears (or the window resets), at least 1, as {@code retry-after} wants it. */
    public long retryAfterSeconds() {
        return refusal != null ? refusal.retryAfterSeconds() : Math.max(1, (resetMillis + 999) / 1000);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Verdict that && java.util.Objects.equals(refusal, that.refusal) && strict == that.strict
                && Double.compare(saturation, that.saturation) == 0 && Arrays.equals(limits, that.limits)
                && Arrays.equals(remaining, that.remaining) && resetMillis == that.resetMillis
                && budget.equals(that.budget) && java.util.Objects.equals(sharing, that.sharing)
                && Arrays.equals(resets, that.resets);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(refusal, strict, saturation, Arrays.hashCode(limits), Arrays.hashCode(remaining),
                resetMillis, budget);
    }

    @Override
    public String toString() {
        return "Verdict[refusal=" + refusal + ", strict=" + strict + ", saturation=" + saturation + ", limits="
                + Arrays.toString(limits) + ", remaining=" + Arrays.toString(remaining) + ", resetMillis=" + resetMillis
                + ", budget=" + budget + (sharing == null ? "" : ", sharing=" + sharing)
                + (resets == null ? "" : ", resets=" + Arrays.toString(resets)) + "]";
    }
}
