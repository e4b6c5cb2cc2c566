package dev.llmratelimit.store.jdbc;

import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.Enforcement;
import dev.llmratelimit.engine.GroupKind;
import dev.llmratelimit.engine.GroupWindow;
import dev.llmratelimit.engine.Increments;
import dev.llmratelimit.engine.Limits;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.Settlement;
import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.engine.UsageCost;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.testsupport.Plans;
import dev.llmratelimit.testsupport.PostgresServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The JDBC budget store phase by phase on a real PostgreSQL server: one transaction before the call
 * and one after it (docs/admission.md), with as many statements for four budgets as for one; and
 * exactly-once settlement by request id on every path (twice, cancel first, after the lease).
 */
class JdbcPhasesTest {

    @RegisterExtension
    static final PostgresServerExtension PG = new PostgresServerExtension();

    private static final long PERIOD_START = 1_767_225_600_000L;
    private static final long PERIOD_END = PERIOD_START + 3_600_000L;

    /** A success of unknown usage, settled after its lease: the worst case is the charge. */
    private static final Settlement KEPT_LATE = new Settlement(Settlement.KEEP, Settlement.KEEP, false, true);

    private final MutableClock clock = new MutableClock(PERIOD_START);
    private final AtomicInteger transactions = new AtomicInteger();
    private final AtomicInteger statements = new AtomicInteger();
    private JdbcAdmissionStore store;

    @BeforeEach
    void open() {
        JdbcBudgetSettings settings = JdbcBudgetSettings.parse(java.util.Map.of(JdbcBudgetSettings.PREFIX + "url",
                PG.server().url(), JdbcBudgetSettings.PREFIX + "user", PG.server().user()));
        JdbcAdmissionStore.open(settings, clock).close();            // creates the tables
        store = new JdbcAdmissionStore(counting(settings.connections()), settings.tablePrefix(), clock);
    }

    @AfterEach
    void close() {
        store.close();
    }

    /** Budgets team, user, key and team-on-model of {@code budget} micro-dollars, reserving {@code worstCase}. */
    private static Plan plan(int budgets, long worstCase, long budget) {
        String[][] ids = {{"t:team-a", ""}, {"u:alice", ""}, {"k:alice-key", ""}, {"t:team-a", "m"}};
        List<CounterGroup> groups = new ArrayList<>();
        for (int i = 0; i < budgets; i++) {
            groups.add(new CounterGroup(GroupKind.BUDGET, ids[i][0], ids[i][1],
                    GroupWindow.period(Long.toString(PERIOD_START), PERIOD_END),
                    new Limits(Limits.NONE, Limits.NONE, Limits.NONE, budget), Enforcement.ALWAYS,
                    new Increments(0, 0, worstCase, false)));
        }
        return new Plan(Plans.newRequestId(), "m", "", groups, 60_000, UsageCost.FREE);
    }

    @Test
    void eachPhaseIsOneTransactionWithAsManyStatementsForFourBudgetsAsForOne() {
        int[] oneBudget = phases(plan(1, 160, 1_000_000));
        int[] fourBudgets = phases(plan(4, 160, 1_000_000));
        assertThat(oneBudget).containsExactly(1, 4, 1, 5);           // decide: 1 transaction, 4 statements; settle: 1, 5
        assertThat(fourBudgets).containsExactly(oneBudget);
    }

    /** Transactions and statements of decide, then of settle. */
    private int[] phases(Plan plan) {
        transactions.set(0);
        statements.set(0);
        assertThat(store.decide(plan).admitted()).isTrue();
        int[] counts = {transactions.get(), statements.get(), 0, 0};
        transactions.set(0);
        statements.set(0);
        store.settle(plan, Settlement.of(0, 100));
        counts[2] = transactions.get();
        counts[3] = statements.get();
        return counts;
    }

    @Test
    void aSecondSettlementAndASettlementAfterACancelChargeNothingMore() throws SQLException {
        Plan plan = plan(2, 160, 1_000);
        store.decide(plan);
        store.settle(plan, Settlement.of(0, 100));
        store.settle(plan, Settlement.of(0, 100));
        store.settle(plan, Settlement.CANCEL);
        assertThat(spentAndReserved("t:team-a")).containsExactly(100, 0);
        assertThat(spentAndReserved("u:alice")).containsExactly(100, 0);
        assertThatThrownBy(() -> store.decide(plan)).isInstanceOf(StoreUnavailableException.class);  // decided once
        assertThat(spentAndReserved("t:team-a")).containsExactly(100, 0);
    }

    @Test
    void aCancelBeforeTheDecisionLeavesATombstoneItObeys() throws SQLException {
        Plan plan = plan(1, 160, 1_000);
        store.settle(plan, Settlement.CANCEL);                       // the caller gave up before the decision ran
        assertThatThrownBy(() -> store.decide(plan)).isInstanceOf(StoreUnavailableException.class)
                .satisfies(e -> assertThat(((StoreUnavailableException) e).mayHaveRun()).isFalse());
        assertThat(spentAndReserved("t:team-a")).as("no counter was written").isEmpty();
    }

    @Test
    void aCancelledDecisionWhoseCallRanAllTheSameIsChargedOnce() throws SQLException {
        Plan plan = plan(1, 160, 1_000);
        store.decide(plan);
        store.settle(plan, Settlement.CANCEL);                        // a compensation of a decision without answer
        assertThat(spentAndReserved("t:team-a")).containsExactly(0, 0);
        store.settle(plan, Settlement.of(0, 120));                   // fail-open let the call through: it cost 120
        store.settle(plan, Settlement.of(0, 120));
        assertThat(spentAndReserved("t:team-a")).containsExactly(120, 0);
    }

    @Test
    void aRefusalCountsNothingButKeepsTheSweepOfExpiredReservations() throws SQLException {
        Plan lost = plan(1, 600, 1_000);
        assertThat(store.decide(lost).admitted()).isTrue();
        clock.advance(Duration.ofSeconds(60));                       // the lease ends
        Plan tooBig = plan(1, 1_001, 1_000);
        Verdict refused = store.decide(tooBig);
        assertThat(refused.admitted()).isFalse();
        assertThat(refused.refusal().reserved()).isZero();           // swept before the rule saw it
        assertThat(spentAndReserved("t:team-a")).containsExactly(0, 0);
        store.settle(lost, KEPT_LATE);              // late, usage unknown: the worst case is spent
        store.settle(lost, KEPT_LATE);
        assertThat(spentAndReserved("t:team-a")).containsExactly(600, 0);
        Plan retried = plan(1, 400, 1_000);
        assertThat(store.decide(retried).admitted()).isTrue();       // 600 + 400 fits exactly
        assertThat(spentAndReserved("t:team-a")).containsExactly(600, 400);
    }

    private static long[] spentAndReserved(String budget) throws SQLException {
        return row("SELECT spent, reserved FROM llm_budget_counter WHERE budget_id = '"
                + budget + "' AND model = ''");
    }

    private static long[] row(String sql) throws SQLException {
        try (Connection connection = PG.server().connect(); Statement statement = connection.createStatement();
             java.sql.ResultSet row = statement.executeQuery(sql)) {
            return row.next() ? new long[] {row.getLong(1), row.getLong(2)} : new long[0];
        }
    }

    /** The connections of {@code source}, counting commits and rollbacks (transactions) and statements executed. */
    private ConnectionSource counting(ConnectionSource source) {
        return new ConnectionSource() {
            @Override
            public Connection acquire() throws SQLException {
                Connection connection = source.acquire();
                return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                        (proxy, method, args) -> {
                            if (method.getName().equals("commit") || method.getName().equals("rollback")) {
                                transactions.incrementAndGet();
                            }
                            Object result = invoke(method, connection, args);
                            return result instanceof Statement statement ? countingStatement(statement) : result;
                        });
            }

            @Override
            public void release(Connection connection, boolean broken) {
                source.release(unwrap(connection), broken);
            }

            @Override
            public void close() {
                source.close();
            }
        };
    }

    private Object countingStatement(Statement statement) {
        Class<?>[] types = statement instanceof java.sql.PreparedStatement
                ? new Class<?>[] {java.sql.PreparedStatement.class} : new Class<?>[] {Statement.class};
        return Proxy.newProxyInstance(getClass().getClassLoader(), types, (proxy, method, args) -> {
            if (method.getName().startsWith("execute")) {
                statements.incrementAndGet();
            }
            return invoke(method, statement, args);
        });
    }

    private static Connection unwrap(Connection connection) {
        try {
            return connection.unwrap(Connection.class);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            if (method.getName().equals("unwrap") && target instanceof Connection) {
                return target;
            }
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
