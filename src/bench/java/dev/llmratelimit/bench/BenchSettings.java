package dev.llmratelimit.bench;

/**
 * How much work each part does: {@code quick} keeps every part alive in CI (under 3 minutes),
 * {@code full} is the run whose numbers go into the repository's BENCHMARKS.md.
 */
record BenchSettings(String mode, int jmhForks, int jmhWarmupSeconds, int jmhMeasureSeconds,
                     int redisWarmup, int redisSamples, int redisThroughputCalls, int rounds,
                     int httpWarmup, int httpRequests, int accuracyTrials) {

    static final int REDIS_THREADS = 16;
    static final int HTTP_CONNECTIONS = 8;

    static BenchSettings of(String mode) {
        return switch (mode) {
            case "quick" -> new BenchSettings(mode, 1, 1, 2, 500, 2_000, 8_000, 1, 300, 1_500, 2);
            case "full" -> new BenchSettings(mode, 3, 5, 5, 1_000, 4_000, 20_000, 7, 1_000, 5_000, 5);
            default -> throw new IllegalArgumentException("bench.mode must be quick or full, not " + mode);
        };
    }
}
