package dev.llmratelimit.servlet;

import dev.llmratelimit.testsupport.PostgresServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;

/** The same answers through the filter with the budgets in a real PostgreSQL server ({@code budget.store=jdbc}). */
class JdbcBudgetFilterTest extends BudgetFilterTest {

    @RegisterExtension
    static final PostgresServerExtension PG = new PostgresServerExtension();

    @Override
    protected List<String> storeLines() {
        return List.of("budget.store=jdbc", "budget.jdbc.url=" + PG.server().url(), "budget.jdbc.user=" + PG.server().user());
    }
}
