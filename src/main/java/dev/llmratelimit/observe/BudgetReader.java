package dev.llmratelimit.observe;

import dev.llmratelimit.budget.BudgetLine;
import dev.llmratelimit.budget.BudgetPolicy;
import dev.llmratelimit.budget.ScopeBudget;
import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.BudgetExtension;
import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.StoreUnavailableException;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Reads every configured budget's spend in its current period from the store that keeps budgets
 * (memory, Redis or the budget database), one read per budget, for the status page and the gauges.
 * Budgets that only {@code defaults.*} give are per caller and not listed.
 */
public final class BudgetReader implements BudgetStatus.Source {

    private final Supplier<BudgetPolicy> policy;
    private final AdmissionStore store;
    private final Clock clock;

    /** @param policy the budgets in force (a reload swaps them) */
    public BudgetReader(Supplier<BudgetPolicy> policy, AdmissionStore store, Clock clock) {
        this.policy = policy;
        this.store = store;
        this.clock = clock;
    }

    @Override
    public List<BudgetStatus> get() {
        List<BudgetLine> lines = policy.get().configuredLines(clock.millis());
        if (lines.isEmpty()) {
            return List.of();
        }
        List<CounterGroup> groups = lines.stream().map(BudgetExtension::counterOf).toList();
        long[][] held;
        try {
            held = store.budgets(groups);
        } catch (StoreUnavailableException e) {
            held = null;
        }
        List<BudgetStatus> budgets = new ArrayList<>(lines.size());
        for (int i = 0; i < lines.size(); i++) {
            BudgetLine line = lines.get(i);
            budgets.add(new BudgetStatus(line.scope().label(), line.subject(), line.model().isEmpty() ? null : line.model(),
                    line.hasLimit() ? line.limit() : -1, line.soft() == ScopeBudget.NOT_SET ? -1 : line.soft(),
                    held == null ? -1 : held[i][0], held == null ? -1 : held[i][1],
                    Instant.ofEpochMilli(line.periodStart()), Instant.ofEpochMilli(line.periodEnd())));
        }
        return budgets;
    }
}
