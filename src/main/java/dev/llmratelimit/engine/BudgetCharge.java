package dev.llmratelimit.engine;

import dev.llmratelimit.budget.ModelPrice;
import dev.llmratelimit.usage.Usage;

import java.util.Set;

/**
 * What a request's usage costs its budgets, and which of its keys have a budget configured under
 * their own name ({@code principals.bob.budget}): messages name those as configured, and any other
 * key (a default budget's, whose name may be the API key itself) only by its hash.
 */
public record BudgetCharge(ModelPrice price, Set<String> configuredKeys) implements UsageCost {

    public BudgetCharge {
        configuredKeys = Set.copyOf(configuredKeys);
    }

    @Override
    public long micros(Usage usage) {
        return BudgetExtension.cost(price, usage);
    }
}
