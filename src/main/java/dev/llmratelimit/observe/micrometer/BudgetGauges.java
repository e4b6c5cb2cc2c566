package dev.llmratelimit.observe.micrometer;

import dev.llmratelimit.observe.BudgetStatus;
import dev.llmratelimit.observe.Instrument;
import io.micrometer.core.instrument.Tags;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The budget gauges: per scope kind ({@code key}, {@code user}, {@code team}) and model ({@code all}
 * for a scope's whole budget), the sum of the configured budgets' hard limits and of what they spent,
 * read once per collection ({@link Collected}). Budgets whose figures could not be read are left
 * out of that collection's sums (NaN where none could).
 */
final class BudgetGauges {

    static final String WHOLE_BUDGET = "all";

    private final Meters meters;
    private final BudgetStatus.Source budgets;

    BudgetGauges(Meters meters, BudgetStatus.Source budgets) {
        this.meters = meters;
        this.budgets = budgets;
    }

    /** One pair of gauges per (scope, model) the configuration has: its budgets are listed even when the store does not answer. */
    void register() {
        Collected<Map<Tags, long[]>> sums = new Collected<>(this::sums);
        Set<Tags> configured = new LinkedHashSet<>();
        for (BudgetStatus budget : budgets.get()) {
            configured.add(tags(budget));
        }
        for (Tags tags : configured) {
            meters.gauge(Instrument.BUDGET_LIMIT, tags, () -> sum(sums, tags, 0));
            meters.gauge(Instrument.BUDGET_SPENT, tags, () -> sum(sums, tags, 1));
        }
    }

    private static double sum(Collected<Map<Tags, long[]>> sums, Tags tags, int figure) {
        long[] sum = sums.get().get(tags);
        return sum == null ? Double.NaN : sum[figure];
    }

    /** Limit and spent per (scope, model), of the budgets whose figures could be read. */
    private Map<Tags, long[]> sums() {
        Map<Tags, long[]> sums = new HashMap<>();
        for (BudgetStatus budget : budgets.get()) {
            if (budget.spentMicros() < 0) {
                continue;
            }
            long[] sum = sums.computeIfAbsent(tags(budget), t -> new long[2]);
            sum[0] += Math.max(0, budget.limitMicros());
            sum[1] += budget.spentMicros();
        }
        return sums;
    }

    private static Tags tags(BudgetStatus budget) {
        return Tags.of("scope", budget.scope(), "model", budget.model() == null ? WHOLE_BUDGET : budget.model());
    }
}
