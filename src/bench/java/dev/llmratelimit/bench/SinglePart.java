package dev.llmratelimit.bench;

import dev.llmratelimit.testsupport.RedisServer;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code -Dbench.only=<part>}: one part measured alone. Its section takes the place of the same section of
 * the BENCHMARKS.md already in the output directory, which must come from a run of the same mode (the
 * other sections and the summary's headline stay as that run wrote them); without one, the file holds
 * this part only.
 */
final class SinglePart {

    /** Measures one part and writes its section. */
    private interface Part {
        void measureInto(BenchSettings settings, Report report) throws Exception;
    }

    /** The parts that need no other part's figures. */
    static final Map<String, Part> PARTS = new TreeMap<>(Map.of(
            "decision", (settings, report) -> {
                List<DecisionCost.Cost> costs = new DecisionCost(settings).measure();
                DecisionCost.write(report, costs);
                report.summarySentence(DecisionCost.headline(costs));
            },
            "redis-decision", SinglePart::redisDecision,
            "outbound", SinglePart::outbound,
            "waiting", (settings, report) -> WaitingCost.write(report, new WaitingCost(settings).measure()),
            "hostile-input", (settings, report) -> HostileInputCost.write(report, new HostileInputCost(settings).measure()),
            "budgets", (settings, report) -> {
                BudgetCost cost = new BudgetCost(settings);
                BudgetCost.write(report, cost.measureMemory(), cost.measureJdbc());
            }));

    /** The parts with a sentence of the summary's paragraph, by the words it begins with. */
    private static final Map<String, String> SUMMARY_OPENINGS = Map.of(
            "decision", DecisionCost.HEADLINE_OPENING,
            "redis-decision", RedisDecisionCost.HEADLINE_OPENING);

    private SinglePart() {
    }

    private static void outbound(BenchSettings settings, Report report) throws Exception {
        try (RedisServer redis = RedisServer.startAsService()) {
            OutboundCost.write(report, new OutboundCost(settings, redis.address()).measure());
        }
    }

    private static void redisDecision(BenchSettings settings, Report report) throws Exception {
        try (RedisServer redis = RedisServer.startAsService();
                RedisDecisionCost cost = new RedisDecisionCost(settings, redis.address())) {
            List<RedisDecisionCost.Result> results = cost.measure();
            RedisDecisionCost.write(report, results, BenchmarkRunner.redisVersion(redis));
            report.summarySentence(RedisDecisionCost.headline(results));
        }
    }

    static void run(String name, BenchSettings settings, Path file) throws Exception {
        Part part = PARTS.get(name);
        if (part == null) {
            throw new IllegalArgumentException("bench.only must be all or one of " + PARTS.keySet() + ", not " + name);
        }
        if (Files.exists(file) && SUMMARY_OPENINGS.containsKey(name)) {
            ReportMerge.summarySentence(Files.readString(file, StandardCharsets.UTF_8), SUMMARY_OPENINGS.get(name));
        }
        long started = System.nanoTime();
        Report report = new Report();
        part.measureInto(settings, report);
        double minutes = (System.nanoTime() - started) / 60e9;
        String text = Files.exists(file)
                ? ReportMerge.replaceSection(Files.readString(file, StandardCharsets.UTF_8), settings.mode(), report.body(),
                        "Measured alone on " + ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ISO_LOCAL_DATE)
                                + " (`-Dbench.only=" + name + "`, " + Report.fixed(minutes, 1) + " min); the other "
                                + "sections come from the run the header describes.", report.summarySentence())
                : BenchmarkRunner.header(settings, minutes, report.targets(), "Only part `" + name + "` was run (`-Dbench.only="
                        + name + "`).") + report.body();
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }
}
