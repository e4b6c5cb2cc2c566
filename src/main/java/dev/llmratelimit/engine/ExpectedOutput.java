package dev.llmratelimit.engine;

import java.util.function.LongSupplier;

/**
 * The completion tokens one pool's responses from one model are expected to use when a request sets
 * no {@code max_tokens}: a moving average that starts at {@code expected-output-tokens} and moves an
 * eighth of the way towards the completion tokens of every completed response whose estimate it
 * served (an exponentially weighted moving average, as TCP averages round-trip times), held to two
 * floors: {@code expected-output-min-tokens}, and the mean of the answers this pool received in the
 * last complete window and in the current one. Learning per pool keeps callers of one priority from
 * steering the expectation of another; the floors keep a burst of short answers from talking the
 * expectation down for the long ones that follow. Thread-safe.
 */
final class ExpectedOutput {

    private static final double WEIGHT = 0.125;

    private final long floorTokens;
    private final long windowMillis;
    private final LongSupplier clock;

    private double average;
    private long windowStart;
    private double windowSum;
    private long windowCount;
    private double lastWindowMean;

    /**
     * @param floorTokens  the least the expectation ever is
     * @param windowMillis the window whose mean is also a floor
     * @param clock        milliseconds
     */
    ExpectedOutput(long initialTokens, long floorTokens, long windowMillis, LongSupplier clock) {
        this.average = Math.max(initialTokens, floorTokens);
        this.floorTokens = floorTokens;
        this.windowMillis = windowMillis;
        this.clock = clock;
        this.windowStart = clock.getAsLong();
    }

    /** The expectation, rounded up to whole tokens. */
    synchronized long tokens() {
        roll(clock.getAsLong());
        double currentMean = windowCount == 0 ? 0 : windowSum / windowCount;
        return (long) Math.ceil(Math.max(Math.max(average, floorTokens), Math.max(lastWindowMean, currentMean)));
    }

    /** What the response to a request of {@code choices} completions will teach: their mean per choice. */
    Lesson lessonFor(int choices) {
        return new Lesson(this, Math.max(1, choices));
    }

    record Lesson(ExpectedOutput expected, int choices) {
        void learn(long completionTokens) {
            expected.learn((double) completionTokens / choices);
        }
    }

    private synchronized void learn(double completionTokens) {
        roll(clock.getAsLong());
        windowSum += completionTokens;
        windowCount++;
        average = Math.max(floorTokens, average + WEIGHT * (completionTokens - average));
    }

    /** Starts a new window when the current one has ended; a window without answers leaves no mean. */
    private void roll(long now) {
        if (now - windowStart < windowMillis) {
            return;
        }
        boolean adjacent = now - windowStart < 2 * windowMillis;
        lastWindowMean = adjacent && windowCount > 0 ? windowSum / windowCount : 0;
        windowStart = now - Math.floorMod(now - windowStart, windowMillis);
        windowSum = 0;
        windowCount = 0;
    }
}
