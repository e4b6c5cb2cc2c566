package dev.llmratelimit.budget;

import dev.llmratelimit.policy.KeyHash;

import java.time.Instant;

/**
 * One budget counter a request spends on, in one period: a scope identity's whole spend, or its
 * spend on one model. Its {@link #counterKey} names scope, identity, model and period, so a new
 * period is a new counter.
 *
 * @param model       the model of a per-model budget, or {@code ""} for the scope's whole spend
 * @param limit       the hard budget in micro-dollars, or {@link ScopeBudget#NOT_SET} (only a soft one)
 * @param soft        the soft budget in micro-dollars, or {@link ScopeBudget#NOT_SET}
 */
public record BudgetLine(BudgetScope scope, String subject, String model, long periodStart, long periodEnd,
                         long limit, long soft) {

    /**
     * Unique per (scope, subject, model, period): the subject is length-prefixed so no name can
     * reach another's counter, the model comes last.
     */
    public String counterKey() {
        return scope.code() + ":" + periodStart + ":" + subject.length() + ":" + subject + ":" + model;
    }

    public boolean hasLimit() {
        return limit != ScopeBudget.NOT_SET;
    }

    /** How messages show the scope: {@code team team-a}, {@code key sha256:0123456789ab}, {@code user bob on model gpt-4o}. */
    public String label() {
        String who = scope.label() + " " + (scope == BudgetScope.KEY ? KeyHash.shortHash(subject) : subject);
        return model.isEmpty() ? who : who + " on model " + model;
    }

    public String periodEndText() {
        return Instant.ofEpochMilli(periodEnd).toString();
    }

    @Override
    public String toString() {
        return "BudgetLine[" + scope.label() + " " + KeyHash.shortHash(subject) + (model.isEmpty() ? "" : " " + model)
                + ", period " + periodStart + ", limit=" + limit + ", soft=" + soft + "]";
    }
}
