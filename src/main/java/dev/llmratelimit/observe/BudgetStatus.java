package dev.llmratelimit.observe;

import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;

/**
 * One configured budget in its current period, as the status page shows it. Figures that could not
 * be read (the store did not answer) are -1.
 *
 * @param scope          {@code key}, {@code user} or {@code team}
 * @param name           the key, user or team as configured ({@code principals.bob.budget}: {@code bob})
 * @param model          the model of a per-model budget, {@code null} for the scope's whole budget
 * @param limitMicros    the hard budget, -1 when only a soft one is set
 * @param softMicros     the soft budget, -1 when none is set
 * @param spentMicros    settled spend in the period
 * @param reservedMicros held for calls still running (their worst case)
 * @param periodEnd      the exclusive end of the current period: the budget resets then
 */
public record BudgetStatus(String scope, String name, String model, long limitMicros, long softMicros,
                           long spentMicros, long reservedMicros, Instant periodStart, Instant periodEnd) {

    /** What is left of the hard budget: limit less spent and reserved, at least 0; -1 without a hard budget or figures. */
    public long leftMicros() {
        return limitMicros < 0 || spentMicros < 0 ? -1 : Math.max(0, limitMicros - spentMicros - reservedMicros);
    }

    /** The share of the hard (else the soft) budget spent or reserved, 0 to 1 and beyond; -1 unknown. */
    public double usedShare() {
        long of = limitMicros >= 0 ? limitMicros : softMicros;
        if (of <= 0 || spentMicros < 0) {
            return -1;
        }
        return (double) (spentMicros + reservedMicros) / of;
    }

    /** Where the status page gets the budgets from. */
    public interface Source extends Supplier<List<BudgetStatus>> {
        Source NONE = List::of;
    }
}
