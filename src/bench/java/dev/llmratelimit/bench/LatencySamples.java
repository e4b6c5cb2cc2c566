package dev.llmratelimit.bench;

import java.util.Arrays;

/** Latencies of individual calls, in nanoseconds; percentiles by nearest rank. */
final class LatencySamples {

    private long[] nanos;
    private int size;

    LatencySamples(int expected) {
        nanos = new long[Math.max(16, expected)];
    }

    void add(long latencyNanos) {
        if (size == nanos.length) {
            nanos = Arrays.copyOf(nanos, size * 2);
        }
        nanos[size++] = latencyNanos;
    }

    void addAll(LatencySamples other) {
        for (int i = 0; i < other.size; i++) {
            add(other.nanos[i]);
        }
    }

    int size() {
        return size;
    }

    /** The percentile in microseconds, {@code p} in [0, 100]. */
    double percentileMicros(double p) {
        if (size == 0) {
            return Double.NaN;
        }
        long[] sorted = Arrays.copyOf(nanos, size);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * size);
        return sorted[Math.max(0, Math.min(size - 1, rank - 1))] / 1_000.0;
    }
}
