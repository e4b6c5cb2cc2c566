package dev.llmratelimit.config;

import dev.llmratelimit.budget.BudgetPolicy;
import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.BudgetExtension;
import dev.llmratelimit.engine.PlanExtension;
import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.store.CircuitBreaker;
import dev.llmratelimit.store.CircuitBreakerSettings;
import dev.llmratelimit.store.CircuitBreakingAdmissionStore;
import dev.llmratelimit.store.CompensatingAdmissionStore;
import dev.llmratelimit.store.PendingCompensations;
import dev.llmratelimit.store.SplitAdmissionStore;
import dev.llmratelimit.store.jdbc.JdbcAdmissionStore;
import dev.llmratelimit.store.jdbc.JdbcBudgetSettings;

import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The budget part of the admission plan: budgets are counter groups of the one admission. By
 * default ({@code llm.ratelimit.budget.store} unset, or naming the counter store) they live in the
 * counter store, in the same script as every other limit; {@code budget.store=jdbc} keeps them in
 * a database, the store of record for money, behind its own circuit breaker and queue of
 * compensations, through a {@link SplitAdmissionStore}.
 */
final class BudgetStores implements AutoCloseable {

    static final String STORE = BudgetPolicy.BUDGET + "store";
    private static final String JDBC = "jdbc";

    private final List<PlanExtension> extensions;
    private final AdmissionStore budgetStore;
    private final RateLimitPolicy policy;

    private BudgetStores(List<PlanExtension> extensions, AdmissionStore budgetStore, RateLimitPolicy policy) {
        this.extensions = extensions;
        this.budgetStore = budgetStore;
        this.policy = policy;
    }

    /**
     * Reads the budget configuration; opens the database (creating its tables when missing) only
     * when {@code budget.store=jdbc} and at least one budget is configured.
     */
    static BudgetStores configure(Map<String, String> properties, RateLimitPolicy policy, Clock clock) {
        BudgetPolicy budgets = BudgetPolicy.parse(properties);
        String counterStore = FilterSettings.parse(properties).store();
        String kind = properties.getOrDefault(STORE, counterStore).trim().toLowerCase(Locale.ROOT);
        if (!kind.equals(counterStore) && !kind.equals(JDBC)) {
            throw new PolicyException(STORE, kind, "expected jdbc, or the counter store (llm.ratelimit.store="
                    + counterStore + ")");
        }
        List<PlanExtension> extensions = budgets.isEmpty() ? List.of() : List.of(new BudgetExtension(budgets, clock));
        if (!kind.equals(JDBC)) {
            return new BudgetStores(extensions, null, policy);
        }
        JdbcBudgetSettings settings = JdbcBudgetSettings.parse(properties);
        if (budgets.isEmpty()) {
            return new BudgetStores(extensions, null, policy);
        }
        CircuitBreaker breaker = new CircuitBreaker(CircuitBreakerSettings.parse(properties), Clock.systemUTC());
        AdmissionStore jdbc = new CompensatingAdmissionStore(
                new CircuitBreakingAdmissionStore(JdbcAdmissionStore.open(settings, clock), breaker),
                new PendingCompensations(RateLimitRuntime.PENDING_COMPENSATIONS), Clock.systemUTC());
        return new BudgetStores(extensions, jdbc, policy);
    }

    List<PlanExtension> extensions() {
        return extensions;
    }

    /** The store the engine uses: the counter store, or the split over it and the budget database. */
    AdmissionStore around(AdmissionStore counterStore) {
        return budgetStore == null ? counterStore : new SplitAdmissionStore(counterStore, budgetStore, policy.onStoreFailure());
    }

    @Override
    public void close() {
        if (budgetStore != null) {
            budgetStore.close();
        }
    }
}
