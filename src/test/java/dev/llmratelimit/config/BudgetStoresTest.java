package dev.llmratelimit.config;

import dev.llmratelimit.policy.PolicyException;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code budget.store}: the counter store's kind or jdbc, with its settings checked at start-up naming the property. */
class BudgetStoresTest {

    @Test
    void anotherStoreThanTheCounterStoreOrJdbcFailsAtStartUp() {
        assertThatThrownBy(() -> RateLimitRuntime.create(properties("budget.store=redis", "teams.t.budget=1"), null))
                .isInstanceOf(PolicyException.class)
                .hasMessageContaining("llm.ratelimit.budget.store").hasMessageContaining("expected jdbc, or the counter store");
    }

    @Test
    void jdbcNeedsADataSourceOrAUrlButNotBoth() {
        assertThatThrownBy(() -> RateLimitRuntime.create(properties("budget.store=jdbc", "teams.t.budget=1"), null))
                .isInstanceOf(PolicyException.class).hasMessageContaining("llm.ratelimit.budget.jdbc.datasource");
        assertThatThrownBy(() -> RateLimitRuntime.create(properties("budget.store=jdbc", "teams.t.budget=1",
                "budget.jdbc.url=jdbc:postgresql://127.0.0.1:1/x", "budget.jdbc.datasource=java:comp/DefaultDataSource"), null))
                .isInstanceOf(PolicyException.class).hasMessageContaining("exactly one of");
    }

    @Test
    void badPoolSizeTimeoutAndTablePrefixNameTheirProperty() {
        String[] base = {"budget.store=jdbc", "teams.t.budget=1", "budget.jdbc.url=jdbc:postgresql://127.0.0.1:1/x"};
        for (String[] bad : new String[][] {{"budget.jdbc.pool-size=0", "pool-size"}, {"budget.jdbc.timeout=0ms", "timeout"},
                {"budget.jdbc.table-prefix=x;drop", "table-prefix"}}) {
            String[] lines = java.util.Arrays.copyOf(base, base.length + 1);
            lines[base.length] = bad[0];
            assertThatThrownBy(() -> RateLimitRuntime.create(properties(lines), null))
                    .isInstanceOf(PolicyException.class).hasMessageContaining("llm.ratelimit.budget.jdbc." + bad[1]);
        }
    }

    @Test
    void withoutBudgetsTheDatabaseIsNeverOpened() {
        // nothing listens on port 1: opening the store would fail
        try (RateLimitRuntime runtime = RateLimitRuntime.create(properties("budget.store=jdbc",
                "budget.jdbc.url=jdbc:postgresql://127.0.0.1:1/x", "models.m.rpm=1"), null)) {
            assertThat(runtime.limiter().policy().models()).containsKey("m");
        }
    }

    @Test
    void aReloadCannotAddBudgetsForADatabaseNeverOpened() {
        java.util.concurrent.atomic.AtomicReference<Map<String, String>> current = new java.util.concurrent.atomic.AtomicReference<>(
                properties("budget.store=jdbc", "budget.jdbc.url=jdbc:postgresql://127.0.0.1:1/x", "models.m.rpm=1"));
        try (RateLimitRuntime runtime = RateLimitRuntime.create(ConfigurationLoader.of("test", current::get), null,
                java.time.Clock.systemUTC())) {
            Map<String, String> withBudget = new java.util.HashMap<>(current.get());
            withBudget.put("llm.ratelimit.teams.team-a.budget", "10");
            current.set(withBudget);
            assertThat(runtime.reload()).isFalse();
            assertThat(runtime.configurationStatus().lastError())
                    .isEqualTo("Invalid configuration llm.ratelimit.budget.store=jdbc: the budget database is opened at"
                            + " start-up when budgets are configured; budgets added by a reload need a restart");
        }
    }
}
