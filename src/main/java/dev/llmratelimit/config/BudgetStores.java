package dev.llmratelimit.config;

import dev.llmratelimit.budget.BudgetPolicy;
import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.policy.StoreFailureMode;
import dev.llmratelimit.store.CircuitBreaker;
import dev.llmratelimit.store.CircuitBreakerSettings;
import dev.llmratelimit.store.CircuitBreakingAdmissionStore;
import dev.llmratelimit.store.CompensatingAdmissionStore;
import dev.llmratelimit.store.PendingCompensations;
import dev.llmratelimit.store.SplitAdmissionStore;
import dev.llmratelimit.store.jdbc.JdbcAdmissionStore;
import dev.llmratelimit.store.jdbc.JdbcBudgetSettings;

import java.time.Clock;
import java.util.Locale;
import java.util.Map;

/**
 * Where budgets live. Budgets are counter groups of the one admission; by default
 * ({@code llm.ratelimit.budget.store} unset, or naming the counter store) they live in the counter
 * store, in the same script as every other limit. {@code budget.store=jdbc} keeps them in a
 * database, the store of record for money, behind its own circuit breaker and queue of
 * compensations, through a {@link SplitAdmissionStore}. Chosen at start-up (a restart-only property).
 */
final class BudgetStores {

    static final String STORE = BudgetPolicy.BUDGET + "store";
    private static final String JDBC = "jdbc";

    private BudgetStores() {
    }

    /** @throws PolicyException for a budget store that is neither {@code jdbc} nor the counter store, or bad JDBC settings */
    static void check(Map<String, String> properties, String counterStore) {
        if (kind(properties, counterStore).equals(JDBC)) {
            JdbcBudgetSettings.parse(properties);
        }
    }

    /**
     * The counter stores as they are, or with the budget database beside them (opened now, its
     * tables created when missing) and its circuit on their health. Without budgets the database is
     * not opened (and a reload cannot add budgets).
     */
    static RateLimitRuntime.Stores around(RateLimitRuntime.Stores counters, Map<String, String> properties,
                                          RuntimeConfiguration configuration, Clock clock) {
        if (!kind(properties, configuration.settings().store()).equals(JDBC)) {
            return counters;
        }
        if (configuration.budgets().isEmpty()) {
            return new RateLimitRuntime.Stores(counters.store(), counters.health(), counters.closer(), false);
        }
        StoreFailureMode onStoreFailure = configuration.policy().onStoreFailure();
        CircuitBreaker breaker = new CircuitBreaker(CircuitBreakerSettings.parse(properties), Clock.systemUTC(), "Budget store (jdbc)");
        AdmissionStore jdbc = new CompensatingAdmissionStore(
                new CircuitBreakingAdmissionStore(JdbcAdmissionStore.open(JdbcBudgetSettings.parse(properties), clock), breaker),
                new PendingCompensations(RedisRuntime.PENDING_COMPENSATIONS), Clock.systemUTC(), "budget store (jdbc)");
        AutoCloseable countersCloser = counters.closer();
        return new RateLimitRuntime.Stores(new SplitAdmissionStore(counters.store(), jdbc, onStoreFailure),
                counters.health().withCircuit(JDBC, breaker), () -> {
                    try (countersCloser; jdbc) {
                        // both closed, the budget store first
                    }
                });
    }

    private static String kind(Map<String, String> properties, String counterStore) {
        String kind = properties.getOrDefault(STORE, counterStore).trim().toLowerCase(Locale.ROOT);
        if (!kind.equals(counterStore) && !kind.equals(JDBC)) {
            throw new PolicyException(STORE, kind, "expected jdbc, or the counter store (llm.ratelimit.store="
                    + counterStore + ")");
        }
        return kind;
    }
}
