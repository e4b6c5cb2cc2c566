package dev.llmratelimit.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The budget tables (PostgreSQL dialect), created when missing, every name behind the table prefix
 * (docs/budgets.md shows them):
 *
 * <pre>
 * {prefix}counter      one row per budget and period: budget_id (k:, u:, t: and the name; soft: in
 *                      front for a soft budget), model ('' = the scope's whole spend), period_start,
 *                      period_end (epoch ms), spent and reserved (micro-dollars). Rows of past periods
 *                      stay: they are the spend history.
 * {prefix}request      one row per decision: R reserved, S settled, C cancelled (a tombstone when the
 *                      cancel came first); kept a day after its lease, so settling twice changes nothing.
 * {prefix}reservation  what a decision holds on each counter until its lease_end: deleted when it is
 *                      settled, or when a later decision on the counter finds its lease over.
 * </pre>
 */
final class BudgetSchema {

    private final String prefix;

    BudgetSchema(String prefix) {
        this.prefix = prefix;
    }

    String counter() {
        return prefix + "counter";
    }

    String request() {
        return prefix + "request";
    }

    String reservation() {
        return prefix + "reservation";
    }

    List<String> ddl() {
        return List.of(
                "CREATE TABLE IF NOT EXISTS " + counter() + " ("
                        + "budget_id TEXT NOT NULL, model TEXT NOT NULL, period_start BIGINT NOT NULL, "
                        + "period_end BIGINT NOT NULL, spent BIGINT NOT NULL DEFAULT 0, reserved BIGINT NOT NULL DEFAULT 0, "
                        + "PRIMARY KEY (budget_id, model, period_start))",
                "CREATE TABLE IF NOT EXISTS " + request() + " ("
                        + "request_id TEXT PRIMARY KEY, state CHAR(1) NOT NULL, lease_end BIGINT NOT NULL)",
                "CREATE TABLE IF NOT EXISTS " + reservation() + " ("
                        + "request_id TEXT NOT NULL, budget_id TEXT NOT NULL, model TEXT NOT NULL, period_start BIGINT NOT NULL, "
                        + "amount BIGINT NOT NULL, lease_end BIGINT NOT NULL, "
                        + "PRIMARY KEY (request_id, budget_id, model, period_start))",
                "CREATE INDEX IF NOT EXISTS " + prefix + "reservation_by_counter ON " + reservation()
                        + " (budget_id, model, period_start, lease_end)",
                "CREATE INDEX IF NOT EXISTS " + prefix + "request_by_lease ON " + request() + " (lease_end)");
    }

    void create(Connection connection) throws SQLException {
        connection.setAutoCommit(true);
        try (Statement statement = connection.createStatement()) {
            for (String sql : ddl()) {
                statement.execute(sql);
            }
        }
    }
}
