package dev.llmratelimit.store.jdbc;

import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.GroupCounts;
import dev.llmratelimit.engine.GroupKind;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.PlanRule;
import dev.llmratelimit.engine.Settlement;
import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.engine.Verdict;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Budgets in a database, the store of record for money (docs/budgets.md): exact across any number
 * of instances, durable across restarts of everything. It executes the {@link GroupKind#BUDGET}
 * groups of a plan (the other groups live in the counter store, see
 * {@code store.SplitAdmissionStore}), one transaction per phase whatever the number of budgets:
 *
 * <ul>
 *   <li>decide: record the request id (a cancel that came first wins), create the period's counters
 *       when missing and lock them in key order ({@code INSERT ... ON CONFLICT DO UPDATE ... RETURNING},
 *       one statement), give back their reservations whose lease ended, apply {@link PlanRule} (the
 *       same rule as every store) to the locked figures and, if admitted, reserve on every counter.
 *       The row locks make the read, the rule and the update one atomic step: two instances never
 *       both spend what is left. A refusal keeps the sweep and forgets the request id.</li>
 *   <li>settle: lock the request's row, then the counters, give back what the request still holds
 *       (nothing once its lease gave it back) and charge the cost as spent, once: the request's
 *       state makes a second settlement a no-op. A request that reserved nothing (the database
 *       failed open, or a cancel took the reservation back) is charged all the same, since the call
 *       happened.</li>
 * </ul>
 * Every phase locks the request row, then counters in key order, then reservations, so phases never
 * deadlock one another; a transaction the database aborts anyway (deadlock, serialization) is retried.
 */
public final class JdbcAdmissionStore implements AdmissionStore {

    private static final System.Logger LOG = System.getLogger(JdbcAdmissionStore.class.getName());
    private static final int ATTEMPTS = 3;
    /** How long a request's row is kept after its lease: a settlement that late, or repeated, is still charged once. */
    public static final long RETENTION_MILLIS = 24 * 3600_000L;
    private static final long CLEANUP_INTERVAL_MILLIS = 600_000L;

    private final ConnectionSource connections;
    private final BudgetSchema schema;
    private final Clock clock;
    private final Statements sql;
    private volatile long nextCleanup;

    JdbcAdmissionStore(ConnectionSource connections, String tablePrefix, Clock clock) {
        this.connections = connections;
        this.schema = new BudgetSchema(tablePrefix);
        this.clock = clock;
        this.sql = new Statements(schema);
        this.nextCleanup = clock.millis() + CLEANUP_INTERVAL_MILLIS;
    }

    /**
     * Opens the store and creates its tables when they are missing.
     *
     * @param clock the time of leases (the instances' clocks: keep them NTP-synchronised)
     */
    public static JdbcAdmissionStore open(JdbcBudgetSettings settings, Clock clock) {
        return open(settings.connections(), settings.tablePrefix(), clock);
    }

    static JdbcAdmissionStore open(ConnectionSource connections, String tablePrefix, Clock clock) {
        JdbcAdmissionStore store = new JdbcAdmissionStore(connections, tablePrefix, clock);
        try {
            store.createSchema();
        } catch (StoreUnavailableException first) {
            store.createSchema();             // another instance created the tables at the same moment
        }
        return store;
    }

    private void createSchema() {
        run(connection -> {
            schema.create(connection);
            return null;
        }, false);
    }

    @Override
    public Verdict decide(Plan plan) {
        Counters counters = Counters.of(plan);
        cleanUpNowAndThen();
        return run(connection -> decide(connection, plan, counters), true);
    }

    @Override
    public void settle(Plan plan, Settlement settlement) {
        Counters counters = Counters.of(plan);
        run(connection -> {
            settle(connection, plan, counters, settlement);
            return null;
        }, true);
    }

    /** One read per budget, outside any transaction: the counter row, less reservations whose lease ended. */
    @Override
    public long[][] budgets(List<CounterGroup> groups) {
        Counters counters = new Counters(groups);
        long now = clock.millis();
        return run(connection -> {
            long[][] held = new long[counters.size()][];
            try (PreparedStatement read = connection.prepareStatement(sql.readBudget)) {
                for (int i = 0; i < held.length; i++) {
                    read.setLong(1, now);
                    read.setString(2, counters.budgets[i]);
                    read.setString(3, counters.models[i]);
                    read.setLong(4, counters.periodStarts[i]);
                    try (ResultSet row = read.executeQuery()) {
                        held[i] = row.next() ? new long[] {row.getLong(1), Math.max(0, row.getLong(2))} : new long[2];
                    }
                }
            }
            return held;
        }, false);
    }

    @Override
    public void close() {
        connections.close();
    }

    private Verdict decide(Connection connection, Plan plan, Counters counters) throws SQLException {
        long now = clock.millis();
        if (!insertRequest(connection, plan.requestId(), 'R', now + plan.leaseMillis())) {
            connection.rollback();
            throw StoreUnavailableException.notRun("The decision was cancelled before it ran");
        }
        long[][] figures = lockCounters(connection, counters);
        sweepExpired(connection, counters, figures, now);
        GroupCounts[] counts = new GroupCounts[counters.size()];
        for (int i = 0; i < counts.length; i++) {
            long end = plan.group(i).window().periodEnd();
            counts[i] = GroupCounts.of(GroupCounts.EMPTY.current(), GroupCounts.EMPTY.previous(), figures[0][i],
                    figures[1][i], 0, Math.max(0, end - now), end);
        }
        Verdict verdict = PlanRule.decide(plan, counts);
        if (!verdict.admitted()) {
            deleteRequest(connection, plan.requestId());
        } else if (counters.reserves()) {
            reserve(connection, plan, counters, now + plan.leaseMillis());
        }
        connection.commit();
        return verdict;
    }

    private void settle(Connection connection, Plan plan, Counters counters, Settlement settlement) throws SQLException {
        long leaseEnd = clock.millis() + plan.leaseMillis();
        String state = requestState(connection, plan.requestId());
        if (state == null) {
            if (!insertRequest(connection, plan.requestId(), settlement.cancel() ? 'C' : 'S', leaseEnd)) {
                connection.rollback();
                settle(connection, plan, counters, settlement);   // another instance wrote it first: its state decides
                return;
            }
            if (settlement.cancel()) {
                connection.commit();                                 // a tombstone the decision obeys
                return;
            }
        } else if (state.equals("S") || state.equals("C") && settlement.cancel()) {
            connection.commit();
            return;
        } else {
            updateRequest(connection, plan.requestId(), settlement.cancel() ? 'C' : 'S');
        }
        lockCounters(connection, counters);
        long[] released = state != null && state.equals("R") ? releaseReservations(connection, plan.requestId(), counters)
                : new long[counters.size()];
        long[] spent = new long[counters.size()];
        if (!settlement.cancel()) {
            for (int i = 0; i < spent.length; i++) {
                spent[i] = settlement.micros() == Settlement.KEEP ? plan.group(i).increments().micros() : settlement.micros();
            }
        }
        try (PreparedStatement update = connection.prepareStatement(sql.charge)) {
            counters.bind(connection, update, 1);
            update.setArray(4, connection.createArrayOf("bigint", boxed(spent)));
            update.setArray(5, connection.createArrayOf("bigint", boxed(released)));
            update.executeUpdate();
        }
        connection.commit();
    }

    /** Inserts the request's row; {@code false} when it exists already. */
    private boolean insertRequest(Connection connection, String requestId, char state, long leaseEnd) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(sql.insertRequest)) {
            insert.setString(1, requestId);
            insert.setString(2, String.valueOf(state));
            insert.setLong(3, leaseEnd);
            return insert.executeUpdate() == 1;
        }
    }

    private String requestState(Connection connection, String requestId) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(sql.lockRequest)) {
            select.setString(1, requestId);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getString(1) : null;
            }
        }
    }

    private void updateRequest(Connection connection, String requestId, char state) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(sql.updateRequest)) {
            update.setString(1, String.valueOf(state));
            update.setString(2, requestId);
            update.executeUpdate();
        }
    }

    private void deleteRequest(Connection connection, String requestId) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(sql.deleteRequest)) {
            delete.setString(1, requestId);
            delete.executeUpdate();
        }
    }

    /** Creates missing counters and locks all of them in key order; returns spent and reserved per group. */
    private long[][] lockCounters(Connection connection, Counters counters) throws SQLException {
        long[][] figures = new long[2][counters.size()];
        try (PreparedStatement upsert = connection.prepareStatement(sql.lockCounters)) {
            counters.bind(connection, upsert, 1);
            upsert.setArray(4, connection.createArrayOf("bigint", boxed(counters.periodEnds)));
            try (ResultSet row = upsert.executeQuery()) {
                while (row.next()) {
                    for (int i : counters.indexesOf(row.getString(1), row.getString(2), row.getLong(3))) {
                        figures[0][i] = row.getLong(4);
                        figures[1][i] = row.getLong(5);
                    }
                }
            }
        }
        return figures;
    }

    /** Gives back the reservations on the plan's counters whose lease ended at {@code now}. */
    private void sweepExpired(Connection connection, Counters counters, long[][] figures, long now) throws SQLException {
        try (PreparedStatement sweep = connection.prepareStatement(sql.sweep)) {
            counters.bind(connection, sweep, 1);
            sweep.setLong(4, now);
            try (ResultSet row = sweep.executeQuery()) {
                while (row.next()) {
                    for (int i : counters.indexesOf(row.getString(1), row.getString(2), row.getLong(3))) {
                        figures[1][i] = row.getLong(4);
                    }
                }
            }
        }
    }

    private void reserve(Connection connection, Plan plan, Counters counters, long leaseEnd) throws SQLException {
        Long[] amounts = new Long[counters.size()];
        for (int i = 0; i < amounts.length; i++) {
            amounts[i] = plan.group(i).increments().micros();
        }
        try (PreparedStatement update = connection.prepareStatement(sql.reserve)) {
            counters.bind(connection, update, 1);
            update.setArray(4, connection.createArrayOf("bigint", amounts));
            update.setString(5, plan.requestId());
            update.setLong(6, leaseEnd);
            update.executeUpdate();
        }
    }

    /** Deletes what the request still holds; returns it per group (0 where its lease gave it back). */
    private long[] releaseReservations(Connection connection, String requestId, Counters counters) throws SQLException {
        long[] released = new long[counters.size()];
        try (PreparedStatement delete = connection.prepareStatement(sql.release)) {
            delete.setString(1, requestId);
            try (ResultSet row = delete.executeQuery()) {
                while (row.next()) {
                    for (int i : counters.indexesOf(row.getString(1), row.getString(2), row.getLong(3))) {
                        released[i] = row.getLong(4);
                    }
                }
            }
        }
        return released;
    }

    /**
     * Every ten minutes per instance: gives back expired reservations on every counter (also those
     * nobody decides on any more) and drops request rows a day after their lease.
     */
    private void cleanUpNowAndThen() {
        long now = clock.millis();
        if (now < nextCleanup) {
            return;
        }
        nextCleanup = now + CLEANUP_INTERVAL_MILLIS;
        try {
            run(connection -> {
                try (PreparedStatement sweep = connection.prepareStatement(sql.sweepAll);
                     PreparedStatement delete = connection.prepareStatement(sql.cleanup)) {
                    sweep.setLong(1, now);
                    sweep.executeUpdate();
                    delete.setLong(1, now - RETENTION_MILLIS);
                    delete.executeUpdate();
                }
                connection.commit();
                return null;
            }, true);
        } catch (StoreUnavailableException e) {
            LOG.log(System.Logger.Level.DEBUG, "Budget clean-up skipped: " + e.getMessage());
        }
    }

    /** One transaction on a pooled connection, retried when the database aborts it for a deadlock or serialization. */
    private <T> T run(Transaction<T> work, boolean transactional) {
        SQLException last = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            Connection connection;
            try {
                connection = connections.acquire();
            } catch (SQLException e) {
                throw new StoreUnavailableException("Budget database unavailable: " + e.getMessage(), e);
            }
            boolean broken = false;
            try {
                connection.setAutoCommit(!transactional);
                return work.run(connection);
            } catch (SQLException e) {
                last = e;
                broken = !rollback(connection) || !retryable(e);
                if (!retryable(e)) {
                    break;
                }
            } catch (RuntimeException | Error e) {
                broken = !rollback(connection);        // never hand back a connection with half a transaction
                throw e;
            } finally {
                connections.release(connection, broken);
            }
        }
        throw new StoreUnavailableException("Budget database failed: " + last.getMessage(), last);
    }

    private static boolean rollback(Connection connection) {
        try {
            if (!connection.getAutoCommit()) {
                connection.rollback();
            }
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    private static boolean retryable(SQLException e) {
        String state = e.getSQLState();
        return "40P01".equals(state) || "40001".equals(state);
    }

    private static Long[] boxed(long[] values) {
        Long[] boxed = new Long[values.length];
        for (int i = 0; i < values.length; i++) {
            boxed[i] = values[i];
        }
        return boxed;
    }

    @FunctionalInterface
    private interface Transaction<T> {
        T run(Connection connection) throws SQLException;
    }

    /** The counter keys of a plan's groups (budget id, model, period start), bound as three arrays. */
    private static final class Counters {
        final String[] budgets;
        final String[] models;
        final Long[] periodStarts;
        final long[] periodEnds;
        private final Map<String, int[]> byKey = new HashMap<>();
        private final boolean reserves;

        private Counters(List<CounterGroup> groups) {
            int n = groups.size();
            budgets = new String[n];
            models = new String[n];
            periodStarts = new Long[n];
            periodEnds = new long[n];
            boolean anyReserved = false;
            for (int i = 0; i < n; i++) {
                CounterGroup group = groups.get(i);
                if (group.kind() != GroupKind.BUDGET || !group.window().isPeriod()) {
                    throw new IllegalArgumentException("The JDBC store keeps budget groups only, not " + group);
                }
                budgets[i] = group.id();
                models[i] = group.member();
                periodStarts[i] = Long.parseLong(group.window().periodId());
                periodEnds[i] = group.window().periodEnd();
                anyReserved |= group.increments().micros() > 0;
                byKey.merge(key(budgets[i], models[i], periodStarts[i]), new int[] {i}, Counters::concat);
            }
            reserves = anyReserved;
        }

        static Counters of(Plan plan) {
            return new Counters(plan.groups());
        }

        int size() {
            return budgets.length;
        }

        boolean reserves() {
            return reserves;
        }

        int[] indexesOf(String budget, String model, long periodStart) {
            return byKey.getOrDefault(key(budget, model, periodStart), new int[0]);
        }

        void bind(Connection connection, PreparedStatement statement, int first) throws SQLException {
            Array budgetArray = connection.createArrayOf("text", budgets);
            Array modelArray = connection.createArrayOf("text", models);
            Array startArray = connection.createArrayOf("bigint", periodStarts);
            statement.setArray(first, budgetArray);
            statement.setArray(first + 1, modelArray);
            statement.setArray(first + 2, startArray);
        }

        private static String key(String budget, String model, long periodStart) {
            return budget + '\u0000' + model + '\u0000' + periodStart;
        }

        private static int[] concat(int[] a, int[] b) {
            int[] all = java.util.Arrays.copyOf(a, a.length + b.length);
            System.arraycopy(b, 0, all, a.length, b.length);
            return all;
        }
    }

    /** The SQL of every phase, with the table names filled in once. */
    private static final class Statements {
        final String insertRequest;
        final String lockRequest;
        final String updateRequest;
        final String deleteRequest;
        final String lockCounters;
        final String sweep;
        final String reserve;
        final String release;
        final String charge;
        final String sweepAll;
        final String cleanup;
        final String readBudget;

        Statements(BudgetSchema schema) {
            String counter = schema.counter();
            String request = schema.request();
            String reservation = schema.reservation();
            String keys = "unnest(?::text[], ?::text[], ?::bigint[])";
            readBudget = "SELECT c.spent, c.reserved - COALESCE((SELECT SUM(r.amount) FROM " + reservation + " AS r"
                    + " WHERE r.budget_id = c.budget_id AND r.model = c.model AND r.period_start = c.period_start"
                    + " AND r.lease_end <= ?), 0) FROM " + counter + " AS c"
                    + " WHERE c.budget_id = ? AND c.model = ? AND c.period_start = ?";
            insertRequest = "INSERT INTO " + request + " (request_id, state, lease_end) VALUES (?, ?, ?) ON CONFLICT DO NOTHING";
            lockRequest = "SELECT state FROM " + request + " WHERE request_id = ? FOR UPDATE";
            updateRequest = "UPDATE " + request + " SET state = ? WHERE request_id = ?";
            deleteRequest = "DELETE FROM " + request + " WHERE request_id = ?";
            // DO UPDATE locks an existing row as DO NOTHING would not; rows are taken in key order.
            lockCounters = "INSERT INTO " + counter + " AS c (budget_id, model, period_start, period_end)"
                    + " SELECT DISTINCT v.b, v.m, v.p, v.e FROM unnest(?::text[], ?::text[], ?::bigint[], ?::bigint[]) AS v(b, m, p, e)"
                    + " ORDER BY v.b, v.m, v.p"
                    + " ON CONFLICT (budget_id, model, period_start) DO UPDATE SET period_end = c.period_end"
                    + " RETURNING c.budget_id, c.model, c.period_start, c.spent, c.reserved";
            String giveBack = " UPDATE " + counter + " AS c SET reserved = GREATEST(0, c.reserved - x.total)"
                    + " FROM (SELECT budget_id, model, period_start, SUM(amount) AS total FROM expired"
                    + " GROUP BY budget_id, model, period_start) AS x"
                    + " WHERE c.budget_id = x.budget_id AND c.model = x.model AND c.period_start = x.period_start";
            sweep = "WITH expired AS (DELETE FROM " + reservation + " AS r USING " + keys + " AS v(b, m, p)"
                    + " WHERE r.budget_id = v.b AND r.model = v.m AND r.period_start = v.p AND r.lease_end <= ?"
                    + " RETURNING r.budget_id, r.model, r.period_start, r.amount)" + giveBack
                    + " RETURNING c.budget_id, c.model, c.period_start, c.reserved";
            reserve = "WITH held AS (UPDATE " + counter + " AS c SET reserved = c.reserved + v.a"
                    + " FROM unnest(?::text[], ?::text[], ?::bigint[], ?::bigint[]) AS v(b, m, p, a)"
                    + " WHERE c.budget_id = v.b AND c.model = v.m AND c.period_start = v.p AND v.a > 0"
                    + " RETURNING c.budget_id, c.model, c.period_start, v.a)"
                    + " INSERT INTO " + reservation + " (request_id, budget_id, model, period_start, amount, lease_end)"
                    + " SELECT ?, budget_id, model, period_start, a, ? FROM held";
            release = "DELETE FROM " + reservation + " WHERE request_id = ? RETURNING budget_id, model, period_start, amount";
            charge = "UPDATE " + counter + " AS c SET spent = LEAST(c.spent + v.s, " + Long.MAX_VALUE / 2 + "),"
                    + " reserved = GREATEST(0, c.reserved - v.r)"
                    + " FROM unnest(?::text[], ?::text[], ?::bigint[], ?::bigint[], ?::bigint[]) AS v(b, m, p, s, r)"
                    + " WHERE c.budget_id = v.b AND c.model = v.m AND c.period_start = v.p";
            sweepAll = "WITH expired AS (DELETE FROM " + reservation + " WHERE lease_end <= ?"
                    + " RETURNING budget_id, model, period_start, amount)" + giveBack;
            cleanup = "DELETE FROM " + request + " WHERE lease_end < ?";
        }
    }
}
