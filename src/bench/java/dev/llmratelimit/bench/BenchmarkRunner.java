package dev.llmratelimit.bench;

import dev.llmratelimit.testsupport.RedisServer;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Runs every benchmark part in one JVM (JMH forks its own) and writes BENCHMARKS.md with its plots.
 *
 * <pre>mvn -B -Pbench -DskipTests verify -Dbench.mode=full</pre>
 *
 * Arguments: {@code quick|full}, the output directory ({@code auto}: the project root for
 * {@code full}, {@code target/benchmarks} for {@code quick}, so CI never overwrites the committed file)
 * and {@code all} or the name of one part to run alone ({@link SinglePart}).
 */
public final class BenchmarkRunner {

    private static final String PLOTS = "bench-plots";

    private BenchmarkRunner() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        BenchSettings settings = BenchSettings.of(args.length > 0 ? args[0] : "quick");
        String outArgument = args.length > 1 ? args[1] : "auto";
        String only = args.length > 2 ? args[2] : "all";
        Path out = Path.of(outArgument.equals("auto") ? (settings.mode().equals("full") ? "." : "target/benchmarks") : outArgument);
        Files.createDirectories(out.resolve(PLOTS));
        if (!only.equals("all")) {
            SinglePart.run(only, settings, out.resolve("BENCHMARKS.md"));
            System.out.println("[bench] wrote part " + only + " into " + out.resolve("BENCHMARKS.md").toAbsolutePath().normalize());
            return;
        }
        long started = System.nanoTime();

        progress("decision cost, in-memory store (JMH)", started);
        List<DecisionCost.Cost> costs = new DecisionCost(settings).measure();
        List<RedisDecisionCost.Result> redisCosts;
        HttpOverhead.Measurement http;
        List<BurstAccuracy.Result> accuracy;
        MemoryFootprint.Result memory;
        OutboundCost.Result outbound;
        List<StoreFaults.Result> faults;
        StoreFaults storeFaults;
        String redisVersion;
        try (RedisServer redis = RedisServer.startAsService()) {
            redisVersion = redisVersion(redis);
            progress("decision cost, Redis store", started);
            try (RedisDecisionCost redisCost = new RedisDecisionCost(settings, redis.address())) {
                redisCosts = redisCost.measure();
            }
            progress("HTTP overhead", started);
            http = new HttpOverhead(settings, redis).measure();
            progress("accuracy under bursts", started);
            accuracy = new BurstAccuracy(settings, redis).measure();
            progress("memory", started);
            memory = new MemoryFootprint(redis).measure();
            progress("client-side limiter", started);
            outbound = new OutboundCost(settings, redis.address()).measure();
            progress("store faults: served against capacity", started);
            storeFaults = new StoreFaults(settings, redis);
            faults = storeFaults.measure();
        }
        progress("waiting instead of a 429", started);
        WaitingCost.Result waiting = new WaitingCost(settings).measure();
        progress("hostile input: tokenizer, body readings", started);
        HostileInputCost.Result hostile = new HostileInputCost(settings).measure();
        progress("budgets: in-memory cost (JMH) and JDBC latency on PostgreSQL", started);
        BudgetCost budgetCost = new BudgetCost(settings);
        List<BudgetCost.Memory> budgetMemory = budgetCost.measureMemory();
        BudgetCost.Jdbc budgetJdbc = budgetCost.measureJdbc();

        Report report = new Report();
        DecisionCost.write(report, costs);
        RedisDecisionCost.write(report, redisCosts, redisVersion);
        report.paragraph("![Redis decision latency](" + PLOTS + "/redis-latency.png)");
        HttpOverhead.write(report, http.results(), RedisDecisionCost.twoRoundTripsMicros(redisCosts));
        report.paragraph("![HTTP throughput](" + PLOTS + "/http-throughput.png)");
        RedisCommandCount.write(report, http.commands());
        BurstAccuracy.write(report, accuracy);
        MemoryFootprint.write(report, memory);
        WaitingCost.write(report, waiting);
        HostileInputCost.write(report, hostile);
        OutboundCost.write(report, outbound);
        BudgetCost.write(report, budgetMemory, budgetJdbc);
        StoreFaults.write(report, faults, storeFaults.faultMillis());
        plotRedisLatency(redisCosts, out.resolve(PLOTS).resolve("redis-latency.png"));
        plotHttpThroughput(http.results(), out.resolve(PLOTS).resolve("http-throughput.png"));

        double minutes = (System.nanoTime() - started) / 60e9;
        Files.writeString(out.resolve("BENCHMARKS.md"), header(settings, minutes, report.targets(), headline(costs, redisCosts, http, accuracy))
                + report.body(), StandardCharsets.UTF_8);
        progress("wrote " + out.resolve("BENCHMARKS.md").toAbsolutePath().normalize(), started);
    }

    static String header(BenchSettings settings, double minutes, List<String> targets, String headline) {
        StringBuilder text = new StringBuilder("# Benchmarks\n\n");
        text.append("Generated by `mvn -B -Pbench -DskipTests verify -Dbench.mode=").append(settings.mode())
                .append("` (`src/bench/java`, `dev.llmratelimit.bench.BenchmarkRunner`); do not edit by hand.\n\n");
        if (!settings.mode().equals("full")) {
            text.append("**This is a quick run** (fewer samples, one round): numbers are indicative only.\n\n");
        }
        text.append("- date: ").append(ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ISO_LOCAL_DATE)).append('\n')
                .append("- machine: ").append(Runtime.getRuntime().availableProcessors()).append(" cores, ")
                .append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.arch")).append('\n')
                .append("- Java: ").append(System.getProperty("java.vm.name")).append(' ')
                .append(System.getProperty("java.runtime.version")).append('\n')
                .append("- mode: ").append(settings.mode()).append(", ").append(settings.rounds())
                .append(" interleaved round(s) for the Redis and HTTP parts, total ").append(Report.fixed(minutes, 1))
                .append(" min\n\n")
                .append("The machine is shared and noisy: absolute times drift between runs, the ratios within one run "
                        + "are what to compare. All traffic goes to 127.0.0.1.\n\n")
                .append("## Summary\n\n").append(headline).append("\n\nTargets:\n\n");
        targets.forEach(line -> text.append("- ").append(line).append('\n'));
        return text.toString();
    }

    /** The paragraph the README quotes. */
    private static String headline(List<DecisionCost.Cost> costs, List<RedisDecisionCost.Result> redis,
                                   HttpOverhead.Measurement http, List<BurstAccuracy.Result> accuracy) {
        RedisDecisionCost.Result noOpTwice = RedisDecisionCost.find(redis, RedisDecisionCost.NO_OP_TWICE);
        List<HttpOverhead.Result> results = http.results();
        double jsonBaseline = HttpOverhead.find(results, HttpOverhead.BASELINE, HttpOverhead.JSON).medianRequestsPerSecond();
        double memoryCost = 1 - HttpOverhead.find(results, HttpOverhead.MEMORY, HttpOverhead.JSON).medianRequestsPerSecond() / jsonBaseline;
        double baselineCpu = HttpOverhead.find(results, HttpOverhead.BASELINE, HttpOverhead.JSON).medianServerCpuMicros();
        double memoryCpu = HttpOverhead.find(results, HttpOverhead.MEMORY, HttpOverhead.JSON).medianServerCpuMicros();
        double baselineSequential = HttpOverhead.find(results, HttpOverhead.BASELINE, HttpOverhead.JSON).sequential().percentileMicros(50);
        double redisAdded = HttpOverhead.find(results, HttpOverhead.REDIS, HttpOverhead.JSON).sequential().percentileMicros(50)
                - baselineSequential;
        double callersAdded = HttpOverhead.find(results, HttpOverhead.REDIS_CALLERS, HttpOverhead.JSON).sequential()
                .percentileMicros(50) - baselineSequential;
        String evalsha = http.commands().stream().map(c -> Report.fixed(c.evalshaPerRequest(), 2))
                .collect(Collectors.joining(" and "));
        return DecisionCost.headline(costs) + " On Redis a request is two scripts, admit before the call and settle after it (Redis counted "
                + evalsha + " EVALSHA per request with model limits alone and with caller limits too). "
                + RedisDecisionCost.headline(redis) + " Behind the demo endpoint the in-memory filter costs "
                + Report.percent(Math.max(0, memoryCost)) + " of plain-JSON requests per second and adds "
                + Report.fixed(memoryCpu - baselineCpu, 1) + " us of server CPU to a request's " + Report.fixed(baselineCpu, 1)
                + "; the Redis filter adds "
                + Report.fixed(redisAdded, 0) + " us to a request's median (" + Report.fixed(callersAdded, 0)
                + " us with caller limits), beside " + Report.fixed(noOpTwice.latencies().percentileMicros(50), 0)
                + " us for two no-op round trips. Four instances on one Redis never admit a request over "
                + "RPM; a burst of " + BurstAccuracy.REQUESTS + " simultaneous requests overshoots TPM by "
                + Report.percent(BurstAccuracy.medianTokenOvershoot(accuracy, "recorded", BurstAccuracy.Arrival.BURST))
                + " with `token-admission=recorded` and by "
                + Report.percent(BurstAccuracy.medianTokenOvershoot(accuracy, "reserve", BurstAccuracy.Arrival.BURST))
                + " with `token-admission=reserve`.";
    }

    private static void plotRedisLatency(List<RedisDecisionCost.Result> results, Path png) throws Exception {
        double[][] values = new double[results.size()][];
        for (int i = 0; i < results.size(); i++) {
            LatencySamples latencies = results.get(i).latencies();
            values[i] = new double[] {latencies.percentileMicros(50), latencies.percentileMicros(90)};
        }
        List<String> names = results.stream().map(r -> shortName(r.name())).toList();
        new BarChart("Redis: latency of one call, one client thread", "microseconds", names,
                List.of("p50", "p90 (p99 is in the table)"), values).write(png);
    }

    private static void plotHttpThroughput(List<HttpOverhead.Result> results, Path png) throws Exception {
        List<String> bodies = List.of(HttpOverhead.JSON, HttpOverhead.STREAM);
        List<String> servers = HttpOverhead.SERVERS;
        double[][] values = new double[bodies.size()][servers.size()];
        for (int b = 0; b < bodies.size(); b++) {
            for (int s = 0; s < servers.size(); s++) {
                values[b][s] = HttpOverhead.find(results, servers.get(s), bodies.get(b)).medianRequestsPerSecond();
            }
        }
        new BarChart("Demo endpoint on 127.0.0.1: requests per second (" + BenchSettings.HTTP_CONNECTIONS + " connections)",
                "requests/s", bodies, servers, values).write(png);
    }

    private static String shortName(String name) {
        return switch (name) {
            case RedisDecisionCost.REQUEST -> "admit + settle";
            case RedisDecisionCost.DECIDE -> "admit alone";
            case RedisDecisionCost.NO_OP_TWICE -> "no-op script x2";
            case RedisDecisionCost.NO_OP -> "no-op script";
            case RedisDecisionCost.BUCKET4J -> "Bucket4j, 2 buckets";
            default -> name;
        };
    }

    static String redisVersion(RedisServer redis) {
        String info = redis.call("INFO", "server").toString();
        int start = info.indexOf("redis_version:");
        return start < 0 ? "" : info.substring(start + "redis_version:".length(), info.indexOf('\r', start));
    }

    private static void progress(String step, long started) {
        System.out.printf("[bench %5.1f s] %s%n", (System.nanoTime() - started) / 1e9, step);
    }
}
