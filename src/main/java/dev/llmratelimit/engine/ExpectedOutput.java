package dev.llmratelimit.engine;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The completion tokens one model's responses are expected to use when a request sets no
 * {@code max_tokens}: a moving average that starts at {@code expected-output-tokens} and moves an
 * eighth of the way towards the completion tokens of every completed response whose estimate it
 * served (an exponentially weighted moving average, as TCP averages round-trip times). Lock-free.
 */
final class ExpectedOutput {

    private static final double WEIGHT = 0.125;

    private final AtomicLong averageBits;

    ExpectedOutput(long initialTokens) {
        averageBits = new AtomicLong(Double.doubleToRawLongBits(initialTokens));
    }

    /** The expectation, rounded up to whole tokens. */
    long tokens() {
        return (long) Math.ceil(Double.longBitsToDouble(averageBits.get()));
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

    private void learn(double completionTokens) {
        while (true) {
            long bits = averageBits.get();
            double average = Double.longBitsToDouble(bits);
            double next = average + WEIGHT * (completionTokens - average);
            if (averageBits.compareAndSet(bits, Double.doubleToRawLongBits(next))) {
                return;
            }
        }
    }
}
