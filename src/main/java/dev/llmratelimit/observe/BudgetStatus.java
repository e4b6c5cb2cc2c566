package dev.llmratelimit.observe;

import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;

/**
 * One budget's spend in its current period, as the status page shows it.
 *
 * @param scope       {@code key}, {@code user} or {@code team}
 * @param name        the scope's name as messages show it (a key only as its hash prefix)
 * @param model       the model of a per-model budget, {@code null} for the scope's whole budget
 * @param periodEnd   the exclusive end of the current period
 */
public record BudgetStatus(String scope, String name, String model, long limitMicros, long spentMicros,
                           Instant periodEnd) {

    /** Where the status page gets the budgets from; the budget engine provides one. */
    public interface Source extends Supplier<List<BudgetStatus>> {
        Source NONE = List::of;
    }
}
