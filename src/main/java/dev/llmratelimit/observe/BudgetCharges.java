package dev.llmratelimit.observe;

import dev.llmratelimit.budget.BudgetScope;
import dev.llmratelimit.engine.BudgetExtension;
import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.GroupKind;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.usage.Usage;

import java.util.EnumSet;

/** Tells the meters what an admitted response cost, once per budget scope its plan counted it against. */
public final class BudgetCharges {

    private BudgetCharges() {
    }

    public static void count(Plan plan, Usage usage, Metrics metrics) {
        EnumSet<BudgetScope> scopes = EnumSet.noneOf(BudgetScope.class);
        for (CounterGroup group : plan.groups()) {
            if (group.kind() == GroupKind.BUDGET) {
                scopes.add(BudgetExtension.scopeOf(group));
            }
        }
        if (scopes.isEmpty()) {
            return;
        }
        long cost = plan.cost().micros(usage);
        for (BudgetScope scope : scopes) {
            metrics.spent(scope.label(), plan.model(), cost);
        }
    }
}
