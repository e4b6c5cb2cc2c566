package dev.llmratelimit.observe;

import dev.llmratelimit.testsupport.PostgresServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;

/** The status page's budgets read from a real PostgreSQL server ({@code budget.store=jdbc}). */
class JdbcBudgetStatusTest extends BudgetStatusTest {

    @RegisterExtension
    static final PostgresServerExtension PG = new PostgresServerExtension();

    @Override
    protected List<String> storeLines() {
        return List.of("budget.store=jdbc", "budget.jdbc.url=" + PG.server().url(), "budget.jdbc.user=" + PG.server().user());
    }
}
