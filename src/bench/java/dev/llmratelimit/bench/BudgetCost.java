package dev.llmratelimit.bench;

import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.Enforcement;
import dev.llmratelimit.engine.GroupKind;
import dev.llmratelimit.engine.GroupWindow;
import dev.llmratelimit.engine.Increments;
import dev.llmratelimit.engine.Limits;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.Settlement;
import dev.llmratelimit.engine.UsageCost;
import dev.llmratelimit.store.jdbc.JdbcAdmissionStore;
import dev.llmratelimit.store.jdbc.JdbcBudgetSettings;
import dev.llmratelimit.testsupport.PostgresServer;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Part 9: budgets. The in-memory admission plus settlement with budgets off and on (JMH), and the
 * latency the JDBC budget store adds per request on a local PostgreSQL: its transaction before the
 * call (decide) and its transaction after it (settle), one client thread, two budgets per request.
 */
final class BudgetCost {

    record Memory(String benchmark, double average) {
    }

    record Jdbc(LatencySamples decide, LatencySamples settle, String serverVersion) {
    }

    private final BenchSettings settings;

    BudgetCost(BenchSettings settings) {
        this.settings = settings;
    }

    List<Memory> measureMemory() throws RunnerException {
        Options options = DecisionCost.jmh(settings, BudgetBenchmark.class.getName() + "\\.budgets(On|Off)$").build();
        List<Memory> results = new ArrayList<>();
        for (RunResult result : new Runner(options).run()) {
            String name = result.getParams().getBenchmark();
            results.add(new Memory(name.substring(name.lastIndexOf('.') + 1), result.getPrimaryResult().getScore()));
        }
        return results;
    }

    Jdbc measureJdbc() throws Exception {
        try (PostgresServer server = PostgresServer.startNew()) {
            JdbcBudgetSettings jdbc = JdbcBudgetSettings.parse(Map.of(JdbcBudgetSettings.PREFIX + "url", server.url(),
                    JdbcBudgetSettings.PREFIX + "user", server.user()));
            String version;
            try (var connection = server.connect(); var statement = connection.createStatement();
                 var row = statement.executeQuery("SHOW server_version")) {
                row.next();
                version = row.getString(1);
            }
            try (JdbcAdmissionStore store = JdbcAdmissionStore.open(jdbc, Clock.systemUTC())) {
                GroupWindow period = GroupWindow.period("0", Long.MAX_VALUE / 4);
                Limits budget = new Limits(Limits.NONE, Limits.NONE, Limits.NONE, 1L << 49);
                Increments worstCase = new Increments(0, 0, 6_000, false);
                List<CounterGroup> groups = List.of(
                        new CounterGroup(GroupKind.BUDGET, "k:bench-key", "", period, budget, Enforcement.ALWAYS, worstCase),
                        new CounterGroup(GroupKind.BUDGET, "t:bench-team", "", period, budget, Enforcement.ALWAYS, worstCase));
                LatencySamples decide = new LatencySamples(settings.redisSamples());
                LatencySamples settle = new LatencySamples(settings.redisSamples());
                for (int i = 0; i < settings.redisWarmup() + settings.redisSamples(); i++) {
                    Plan plan = new Plan("bench-" + i, "gpt-4o", "", groups, 600_000, UsageCost.FREE);
                    long start = System.nanoTime();
                    store.decide(plan);
                    long decided = System.nanoTime();
                    store.settle(plan, Settlement.of(0, 3_000));
                    long settled = System.nanoTime();
                    if (i >= settings.redisWarmup()) {
                        decide.add(decided - start);
                        settle.add(settled - decided);
                    }
                }
                return new Jdbc(decide, settle, version);
            }
        }
    }

    static void write(Report report, List<Memory> memory, Jdbc jdbc) {
        report.heading("9. Budgets")
                .paragraph("In memory (JMH average time, one thread): one `admit` of gpt-4o and its `complete` with usage, "
                        + "with no budget configured beside a key and a team budget (two more counter groups in the plan: "
                        + "price lookup, worst-case cost, reservation, settlement to the actual cost).");
        List<List<String>> rows = new ArrayList<>();
        for (Memory result : memory) {
            rows.add(List.of(result.benchmark(), Report.fixed(result.average(), 0)));
        }
        report.table(List.of("admission + settlement", "ns per request (average)"), rows);
        report.paragraph("JDBC budget store (`budget.store=jdbc`) on a local PostgreSQL " + jdbc.serverVersion()
                + " (own data directory, fsync off, one client thread, the store's own pool), two budgets per request: "
                + "the latency the store adds before the call (one transaction: decide) and after it (one transaction: "
                + "settle), beside the counter store's own call.");
        report.table(List.of("phase", "p50 µs", "p99 µs"), List.of(
                List.of("decide (before the call)", Report.fixed(jdbc.decide().percentileMicros(50), 0),
                        Report.fixed(jdbc.decide().percentileMicros(99), 0)),
                List.of("settle (after the call)", Report.fixed(jdbc.settle().percentileMicros(50), 0),
                        Report.fixed(jdbc.settle().percentileMicros(99), 0))));
    }
}
