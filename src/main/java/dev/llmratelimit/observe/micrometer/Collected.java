package dev.llmratelimit.observe.micrometer;

import java.util.function.Supplier;

/**
 * A reading shared by the gauges that show parts of it. Micrometer reads each gauge on its own;
 * this keeps one store read for all of them: a reading younger than a second is reused, so one
 * scrape reads the store once, not once per gauge.
 */
final class Collected<T> {

    private static final long MAX_AGE_NANOS = 1_000_000_000L;

    private final Supplier<T> read;
    private T value;
    private long readAt;
    private boolean hasReading;

    Collected(Supplier<T> read) {
        this.read = read;
    }

    /** The reading, {@code null} when it failed (the gauges then show NaN). */
    synchronized T get() {
        long now = System.nanoTime();
        if (!hasReading || now - readAt >= MAX_AGE_NANOS) {
            value = read.get();
            readAt = now;
            hasReading = true;
        }
        return value;
    }
}
