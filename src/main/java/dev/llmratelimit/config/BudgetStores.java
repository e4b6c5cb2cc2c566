package dev.llmratelimit.config;

import dev.llmratelimit.budget.BudgetPolicy;
import dev.llmratelimit.engine.BudgetExtension;
import dev.llmratelimit.engine.PlanExtension;
import dev.llmratelimit.policy.PolicyException;

import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The budget part of the admission plan: budgets are counter groups of the one admission, kept in
 * the counter store ({@code llm.ratelimit.store}, memory or Redis) in the same script as every other
 * limit. {@code llm.ratelimit.budget.store} may only name that store in this build.
 */
final class BudgetStores {

    static final String STORE = BudgetPolicy.BUDGET + "store";

    private BudgetStores() {
    }

    /** The budget extension, or none when no budget is configured (prices alone cost nothing). */
    static List<PlanExtension> extensions(Map<String, String> properties, Clock clock) {
        BudgetPolicy budgets = BudgetPolicy.parse(properties);
        String counterStore = FilterSettings.parse(properties).store();
        String kind = properties.getOrDefault(STORE, counterStore).trim().toLowerCase(Locale.ROOT);
        if (!kind.equals(counterStore)) {
            throw new PolicyException(STORE, kind, "budgets are kept in the counter store (llm.ratelimit.store="
                    + counterStore + ") in this build; the jdbc budget store is not available yet");
        }
        return budgets.isEmpty() ? List.of() : List.of(new BudgetExtension(budgets, clock));
    }
}
