package dev.llmratelimit.bench;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.util.Statistics;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Part 1: the in-memory decision against two local Bucket4j buckets, under JMH, at 1 and 2 threads. */
final class DecisionCost {

    /** The first words of this part's sentence of the summary, which a run of this part alone replaces. */
    static final String HEADLINE_OPENING = "An in-memory decision";

    /**
     * Per-call time of one benchmark at one thread count, in nanoseconds: percentiles from sampled
     * calls, the average from timing whole iterations (no timer per call, no outlier dominates): the
     * median over every fork's measured iterations, so a burst of the shared machine's load that
     * slows a few iterations does not decide a ratio.
     */
    record Cost(String benchmark, int threads, double p50, double p99, double average) {
    }

    private final BenchSettings settings;

    DecisionCost(BenchSettings settings) {
        this.settings = settings;
    }

    List<Cost> measure() throws RunnerException {
        List<Cost> costs = new ArrayList<>();
        for (int threads : new int[] {1, 2}) {
            for (String benchmark : List.of("rateLimiter", "rateLimiterWithMetrics", "rateLimiterWithCallerLimits",
                    "rateLimiterWorkConserving", "rateLimiterFiveLimits", "bucket4jTwoBuckets")) {
                costs.add(run(benchmark, threads));
            }
        }
        return costs;
    }

    private Cost run(String benchmark, int threads) throws RunnerException {
        Options options = jmh(settings, DecisionBenchmark.class.getName() + "\\." + benchmark + "$")
                .mode(Mode.SampleTime)
                .threads(threads)
                .build();
        Statistics sampled = null;
        double average = Double.NaN;
        for (RunResult result : new Runner(options).run()) {
            if (result.getParams().getMode() == Mode.SampleTime) {
                sampled = result.getPrimaryResult().getStatistics();
            } else {
                average = result.getPrimaryResult().getStatistics().getPercentile(50);
            }
        }
        return new Cost(benchmark, threads, sampled.getPercentile(50), sampled.getPercentile(99), average);
    }

    /** JMH in this run's mode: average time in nanoseconds, one-second iterations, a small heap. */
    static ChainedOptionsBuilder jmh(BenchSettings settings, String include) {
        return new OptionsBuilder()
                .include(include)
                .mode(Mode.AverageTime)
                .timeUnit(TimeUnit.NANOSECONDS)
                .forks(settings.jmhForks())
                .warmupIterations(settings.jmhWarmupSeconds())
                .warmupTime(TimeValue.seconds(1))
                .measurementIterations(settings.jmhMeasureSeconds())
                .measurementTime(TimeValue.seconds(1))
                .jvmArgs("-Xmx256m")
                .shouldFailOnError(true);
    }

    static void write(Report report, List<Cost> costs) {
        report.heading("1. Decision cost, in-memory store (JMH)")
                .paragraph("One model with `rpm` and `tpm` and three pools (default, `prod` 50 %, `dev` 20 %); each call is "
                        + "`RateLimiter.admit(AdmissionRequest.of(\"gpt-4o\", \"prod\", null))` and the admission's settlement "
                        + "(`abort()`), as every request has: plan, saturation, model and pool checks, counting, the "
                        + "decision's record and its release. Bucket4j: two local buckets (requests and tokens, one greedy minute bandwidth each), "
                        + "`requests.tryConsume(1) && tokens.tryConsume(1)`. Percentiles come from JMH sample mode (per-call "
                        + "times, which include about 20-30 ns of timer overhead on both sides, at the timer's granularity), "
                        + "the average from JMH average-time mode (the median of its one-second iterations over "
                        + "all forks, each the average of millions of calls); at 2 threads both threads hit the same model (one lock) "
                        + "and the same two buckets. Limits are high enough that every call admits. The engine runs "
                        + "with no observer but in the metrics row: a `RateLimitRuntime` also tells its store health and "
                        + "the status page's recent activity of every decision.");
        List<List<String>> rows = new ArrayList<>();
        for (Cost cost : costs) {
            Cost bucket4j = find(costs, "bucket4jTwoBuckets", cost.threads());
            rows.add(List.of(label(cost.benchmark()),
                    Integer.toString(cost.threads()), Report.fixed(cost.p50(), 0), Report.fixed(cost.p99(), 0),
                    Report.fixed(cost.average(), 0), Report.ratio(cost.average() / bucket4j.average())));
        }
        report.table(List.of("decision", "threads", "p50 ns", "p99 ns", "average ns", "average vs Bucket4j"), rows);
        Cost ours = find(costs, "rateLimiter", 1);
        Cost theirs = find(costs, "bucket4jTwoBuckets", 1);
        double ratio = ours.average() / theirs.average();
        Cost withCallers = find(costs, "rateLimiterWithCallerLimits", 1);
        report.paragraph("With per-caller limits on (a key with `rpm-limit` and `max-parallel-requests`, its team with "
                + "`tpm-limit`: the plan a runtime resolves for the key, on the same engine), a decision also acquires "
                + "and releases the caller's counters: "
                + Report.ratio(withCallers.average() / ours.average()) + " the cost of the decision without them "
                + "(average, one thread).");
        Cost withMetrics = find(costs, "rateLimiterWithMetrics", 1);
        double metricsRatio = withMetrics.average() / ours.average();
        report.paragraph("With OpenTelemetry metrics on (the SDK with a reader, so each decision adds one to the "
                + "decision counter and one sample to the latency histogram, with precomputed attributes; no span "
                + "current), a decision costs " + Report.ratio(metricsRatio) + " the decision without them (average, "
                + "one thread). Without an SDK (or with `metrics.enabled=false`) no meter is called: the first row.");
        double fairnessRatio = find(costs, "rateLimiterWorkConserving", 1).average() / ours.average();
        report.paragraph("With `fairness=work-conserving` (the pools asked within the window are read and the request's "
                + "pool marked, under the same lock), a decision costs " + Report.ratio(fairnessRatio)
                + " the decision without it (average, one thread).");
        double fiveLimitsRatio = find(costs, "rateLimiterFiveLimits", 1).average() / ours.average();
        report.paragraph("With `rpm`, `tpm`, `itpm`, `otpm` and `rpd` on the model (five limits, a minute's and a day's "
                + "model and pool groups), a decision costs " + Report.ratio(fiveLimitsRatio) + " the `rpm` + `tpm` "
                + "decision (average, one thread).");
        double callersRatio = withCallers.average() / theirs.average();
        report.target("median decision <= 1 us on one thread", ours.p50() <= 1_000, Report.fixed(ours.p50(), 0) + " ns")
                .target("work-conserving fairness costs at most 1.2x (average, one thread)", fairnessRatio <= 1.2,
                        Report.ratio(fairnessRatio))
                .target("metrics on cost at most 10 % more (average, one thread)", metricsRatio <= 1.10,
                        Report.ratio(metricsRatio))
                .target("within 2x of Bucket4j's cost on one thread (average)", ratio <= 2.0, Report.ratio(ratio))
                .target("with caller limits, within 3x of Bucket4j's cost on one thread (average)", callersRatio <= 3.0,
                        Report.ratio(callersRatio))
                .target("rpm+tpm+itpm+otpm+rpd on the model costs at most 1.3x the rpm+tpm decision (average, one thread)",
                        fiveLimitsRatio <= 1.3, Report.ratio(fiveLimitsRatio))
                .endTargets();
    }

    private static String label(String benchmark) {
        return switch (benchmark) {
            case "rateLimiter" -> "llm-ratelimit (memory)";
            case "rateLimiterWithCallerLimits" -> "llm-ratelimit (memory) + caller limits";
            case "rateLimiterWithMetrics" -> "llm-ratelimit (memory) + OpenTelemetry metrics";
            case "rateLimiterWorkConserving" -> "llm-ratelimit (memory), fairness=work-conserving";
            case "rateLimiterFiveLimits" -> "llm-ratelimit (memory), rpm+tpm+itpm+otpm+rpd";
            default -> "Bucket4j, 2 local buckets";
        };
    }

    /** The summary's first sentence. */
    static String headline(List<Cost> costs) {
        Cost ours = find(costs, "rateLimiter", 1);
        return HEADLINE_OPENING + " takes " + Report.fixed(ours.p50(), 0) + " ns (median, one thread), on average "
                + Report.ratio(ours.average() / find(costs, "bucket4jTwoBuckets", 1).average())
                + " the cost of two local Bucket4j buckets.";
    }

    static Cost find(List<Cost> costs, String benchmark, int threads) {
        return costs.stream().filter(c -> c.benchmark().equals(benchmark) && c.threads() == threads)
                .findFirst().orElseThrow();
    }
}
