package dev.llmratelimit.store.jdbc;

import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.Enforcement;
import dev.llmratelimit.engine.GroupKind;
import dev.llmratelimit.engine.GroupWindow;
import dev.llmratelimit.engine.Increments;
import dev.llmratelimit.engine.Limits;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.UsageCost;
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
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A failure that is not an {@link SQLException} (a bug, a driver's runtime exception) in the middle
 * of a budget transaction on a real PostgreSQL server: the transaction is rolled back before its
 * connection goes back to the pool, so the next user of that connection never commits half of it.
 */
class JdbcUnexpectedFailureTest {

    @RegisterExtension
    static final PostgresServerExtension PG = new PostgresServerExtension();

    private static final long PERIOD_START = 1_767_225_600_000L;

    private final AtomicBoolean failSecondStatement = new AtomicBoolean();
    private final AtomicInteger executed = new AtomicInteger();
    /** Per connection handed back: whether it was rolled back or discarded after the failure. */
    private final AtomicBoolean cleanedUp = new AtomicBoolean();
    private JdbcAdmissionStore store;

    @BeforeEach
    void open() {
        JdbcBudgetSettings settings = JdbcBudgetSettings.parse(Map.of(JdbcBudgetSettings.PREFIX + "url",
                PG.server().url(), JdbcBudgetSettings.PREFIX + "user", PG.server().user()));
        MutableClock clock = new MutableClock(PERIOD_START);
        JdbcAdmissionStore.open(settings, clock).close();
        store = new JdbcAdmissionStore(failing(settings.connections()), settings.tablePrefix(), clock);
    }

    @AfterEach
    void close() {
        store.close();
    }

    private static Plan plan() {
        return new Plan(Plans.newRequestId(), "m", "", List.of(new CounterGroup(GroupKind.BUDGET, "t:team-a", "",
                GroupWindow.period(Long.toString(PERIOD_START), PERIOD_START + 3_600_000L),
                new Limits(Limits.NONE, Limits.NONE, Limits.NONE, 1_000_000), Enforcement.ALWAYS,
                new Increments(0, 0, 100, false))), 60_000, UsageCost.FREE);
    }

    @Test
    void aRuntimeExceptionInATransactionRollsItBack() {
        failSecondStatement.set(true);
        assertThatThrownBy(() -> store.decide(plan())).isInstanceOf(IllegalStateException.class);
        assertThat(cleanedUp).isTrue();
        failSecondStatement.set(false);
        assertThat(store.decide(plan()).admitted()).isTrue();
    }

    private ConnectionSource failing(ConnectionSource source) {
        return new ConnectionSource() {
            private final AtomicBoolean rolledBack = new AtomicBoolean();

            @Override
            public Connection acquire() throws SQLException {
                Connection connection = source.acquire();
                executed.set(0);
                rolledBack.set(false);
                return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                        (proxy, method, args) -> {
                            if (method.getName().equals("rollback")) {
                                rolledBack.set(true);
                            }
                            if (method.getName().equals("unwrap")) {
                                return connection;
                            }
                            Object result = invoke(method, connection, args);
                            return result instanceof PreparedStatement statement ? failingStatement(statement) : result;
                        });
            }

            @Override
            public void release(Connection connection, boolean broken) {
                cleanedUp.set(rolledBack.get() || broken);
                try {
                    source.release(connection.unwrap(Connection.class), broken);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }

            @Override
            public void close() {
                source.close();
            }
        };
    }

    private Object failingStatement(PreparedStatement statement) {
        return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {PreparedStatement.class},
                (proxy, method, args) -> {
                    if (method.getName().startsWith("execute") && executed.incrementAndGet() == 2
                            && failSecondStatement.get()) {
                        throw new IllegalStateException("driver bug");
                    }
                    return invoke(method, statement, args);
                });
    }

    private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
