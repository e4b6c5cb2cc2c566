package dev.llmratelimit.store.jdbc;

import dev.llmratelimit.budget.BudgetIdentity;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.PromptTokens;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.policy.StoreFailureMode;
import dev.llmratelimit.store.BudgetAdmissionContract;
import dev.llmratelimit.store.SplitAdmissionStore;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.PostgresServerExtension;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The budget contract with budgets in a real PostgreSQL server (each instance its own store and
 * connection pool, rate limits in its own memory store), and what only the store of record
 * promises: the schema under its prefix, spend that survives restarts of the application and the
 * database, and a database stopped mid-load that fails closed or open as configured without
 * charging anything twice.
 */
class JdbcBudgetAdmissionTest extends BudgetAdmissionContract.OnAMovableClock {

    @RegisterExtension
    static final PostgresServerExtension PG = new PostgresServerExtension();

    private static final BudgetIdentity ALICE = new BudgetIdentity("alice-key", "alice", "team-a");

    private final Map<Integer, AdmissionStore> stores = new HashMap<>();
    private final List<AutoCloseable> opened = new ArrayList<>();

    static JdbcBudgetSettings settings(String tablePrefix) {
        return JdbcBudgetSettings.parse(Map.of(JdbcBudgetSettings.PREFIX + "url", PG.server().url(),
                JdbcBudgetSettings.PREFIX + "user", PG.server().user(), JdbcBudgetSettings.PREFIX + "pool-size", "4",
                JdbcBudgetSettings.PREFIX + "table-prefix", tablePrefix));
    }

    @Override
    protected synchronized AdmissionStore store(int instance) {
        return stores.computeIfAbsent(instance, i -> {
            JdbcAdmissionStore jdbc = JdbcAdmissionStore.open(settings("llm_budget_"), clock);
            opened.add(jdbc);
            return new SplitAdmissionStore(new MemoryAdmissionStore(clock), jdbc, StoreFailureMode.FAIL_CLOSED);
        });
    }

    @AfterEach
    void closeStores() throws Exception {
        for (AutoCloseable store : opened) {
            store.close();
        }
    }

    private RateLimitRuntime runtime(String... lines) {
        List<String> all = new ArrayList<>(List.of("models.m.rpm=100", "prices.m.input=1.00", "prices.m.output=2.00",
                "budget.store=jdbc", "budget.jdbc.url=" + PG.server().url(), "budget.jdbc.user=" + PG.server().user(),
                "store-backoff=1ms", "store-probe-interval=1ms", "budget.jdbc.timeout=1s"));
        all.addAll(List.of(lines));
        RateLimitRuntime runtime = RateLimitRuntime.create(properties(all.toArray(String[]::new)), null, clock);
        opened.add(runtime);
        return runtime;
    }

    /** 40 prompt tokens and at most 60 completion tokens: a worst case of 160 micro-dollars. */
    private static Admission admit(RateLimitRuntime runtime) {
        return runtime.limiter().admit(AdmissionRequest.of("m", null, null).withIdentity(ALICE)
                .withTokens(PromptTokens.known(40), 60));
    }

    static long[] row(String sql) throws SQLException {
        try (Connection connection = PG.server().connect(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery(sql)) {
            if (!row.next()) {
                return new long[0];
            }
            long[] values = new long[row.getMetaData().getColumnCount()];
            for (int i = 0; i < values.length; i++) {
                values[i] = row.getLong(i + 1);
            }
            return values;
        }
    }

    private static long[] teamSpentAndReserved(String prefix) throws SQLException {
        return row("SELECT spent, reserved FROM " + prefix + "counter WHERE budget_id = 't:team-a' AND model = ''");
    }

    @Test
    void theSchemaIsCreatedUnderTheTablePrefixWithSpentAndReservedApart() throws SQLException {
        RateLimitRuntime runtime = runtime("teams.team-a.budget=1", "budget.jdbc.table-prefix=acme_");
        Admission admission = admit(runtime);
        assertThat(admission.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(teamSpentAndReserved("acme_")).containsExactly(0, 160);
        assertThat(row("SELECT count(*), sum(amount) FROM acme_reservation")).containsExactly(1, 160);
        assertThat(row("SELECT count(*) FROM acme_request WHERE state = 'R'")).containsExactly(1);
        admission.complete(new Usage(40, 31, 0));                    // 40 + 62
        assertThat(teamSpentAndReserved("acme_")).containsExactly(102, 0);
        assertThat(row("SELECT count(*) FROM acme_reservation")).containsExactly(0);
        assertThat(row("SELECT count(*) FROM acme_request WHERE state = 'S'")).containsExactly(1);
        assertThat(row("SELECT period_start, period_end FROM acme_counter WHERE budget_id = 't:team-a'"))
                .containsExactly(1_767_225_600_000L, 1_769_904_000_000L);   // January 2026 in UTC
    }

    @Test
    void aContainerDataSourceServesTheStoreAsItsOwnPoolDoes() throws Exception {
        org.postgresql.ds.PGSimpleDataSource dataSource = new org.postgresql.ds.PGSimpleDataSource();
        dataSource.setUrl(PG.server().url());
        dataSource.setUser(PG.server().user());
        JdbcAdmissionStore jdbc = JdbcAdmissionStore.open(new DataSourceConnections(dataSource), "ds_", clock);
        opened.add(jdbc);
        RateLimiter limiter = new RateLimiter(dev.llmratelimit.policy.PolicyParser.parse(properties("models.m.rpm=10",
                "prices.m.input=1", "prices.m.output=2", "teams.team-a.budget=1")),
                new SplitAdmissionStore(new MemoryAdmissionStore(clock), jdbc, StoreFailureMode.FAIL_CLOSED), clock, 600_000,
                List.of(new dev.llmratelimit.engine.BudgetExtension(dev.llmratelimit.budget.BudgetPolicy.parse(properties(
                        "prices.m.input=1", "prices.m.output=2", "teams.team-a.budget=1")), clock)));
        Admission admission = limiter.admit(AdmissionRequest.of("m", null, null).withIdentity(ALICE)
                .withTokens(PromptTokens.known(40), 60));
        assertThat(admission.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        admission.complete(new Usage(40, 10, 0));
        assertThat(teamSpentAndReserved("ds_")).containsExactly(60, 0);
    }

    @Test
    void spendSurvivesARestartOfTheApplicationAndOfTheDatabase() throws Exception {
        RateLimitRuntime before = runtime("teams.team-a.budget=0.000500", "stop-grace-period=0s");
        for (int i = 0; i < 3; i++) {
            admit(before).complete(new Usage(40, 30, 0));            // 100 each
        }
        Admission inFlight = admit(before);                          // holds 160 when the application stops
        assertThat(inFlight.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        before.close();                                              // settles it: its reservation is the charge
        assertThat(teamSpentAndReserved("llm_budget_")).containsExactly(460, 0);
        PG.server().stop();
        PG.server().start();
        RateLimitRuntime after = runtime("teams.team-a.budget=0.000500");
        Admission refused = admit(after);                             // 460 spent + 160 > 500
        assertThat(refused.outcome()).isEqualTo(Admission.Outcome.REFUSED);
        assertThat(refused.refusal().current()).isEqualTo(460);
        assertThat(refused.refusal().reserved()).isZero();
        inFlight.complete(new Usage(40, 30, 0));                      // the call ends after the stop: nothing changes
        assertThat(teamSpentAndReserved("llm_budget_")).containsExactly(460, 0);
    }

    @Test
    void aDatabaseStoppedMidLoadFailsClosedAndChargesEverythingOnce() throws Exception {
        RateLimitRuntime runtime = runtime("teams.team-a.budget=1", "on-store-failure=fail-closed");
        for (int i = 0; i < 5; i++) {
            admit(runtime).complete(new Usage(40, 30, 0));           // 100 each
        }
        Admission inFlight = admit(runtime);
        PG.server().stop();
        for (int i = 0; i < 5; i++) {
            Admission closed = admit(runtime);
            assertThat(closed.outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_CLOSED);
            assertThat(closed.permitsCall()).isFalse();
            closed.complete(new Usage(40, 30, 0));                    // a refused request settles nothing
        }
        inFlight.complete(new Usage(40, 50, 0));                      // 140, queued until the database is back
        PG.server().start();
        Admission next = admit(runtime);                              // sends the queued settlement first
        assertThat(next.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        next.complete(new Usage(40, 30, 0));
        assertThat(teamSpentAndReserved("llm_budget_")).containsExactly(5 * 100 + 140 + 100, 0);
        // the refused requests were taken back from the rate limits too: 7 requests counted of 100
        assertThat(admit(runtime).verdict().requestRemaining()).isEqualTo(100 - 7 - 1);
    }

    @Test
    void aDatabaseStoppedMidLoadFailsOpenAndChargesEachCallOnceItIsBack() throws Exception {
        RateLimitRuntime runtime = runtime("teams.team-a.budget=1", "on-store-failure=fail-open");
        admit(runtime).complete(new Usage(40, 30, 0));                // 100
        Admission reservedBeforeTheStop = admit(runtime);
        PG.server().stop();
        List<Admission> open = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Admission admitted = admit(runtime);
            assertThat(admitted.outcome()).isEqualTo(Admission.Outcome.ADMITTED);   // on its rate limits alone
            assertThat(admitted.verdict().budget().hasBudget()).isFalse();
            open.add(admitted);
        }
        open.get(0).complete(new Usage(40, 30, 0));                   // still down: queued
        reservedBeforeTheStop.complete(new Usage(40, 20, 0));         // 80, queued
        PG.server().start();
        for (int i = 1; i < 4; i++) {
            open.get(i).complete(new Usage(40, 30, 0));               // back: charged although never reserved
        }
        assertThat(teamSpentAndReserved("llm_budget_")).containsExactly(100 + 80 + 4 * 100, 0);
        assertThat(row("SELECT count(*) FROM llm_budget_request WHERE state = 'S'")).containsExactly(6);
    }
}
