package dev.llmratelimit.engine;

/**
 * Sums that saturate at {@link #CAP} instead of overflowing: the Redis scripts compute with Lua
 * numbers (doubles, exact below 2^53) and every figure they see is at most this cap, so a sum of
 * two stays exact and {@code HINCRBY} never overflows.
 */
public final class Saturating {

    /** 2^50: far above any real count, small enough that sums of a few stay exact as doubles. */
    public static final long CAP = 1L << 50;

    private Saturating() {
    }

    /** The value held to {@code [-CAP, CAP]}. */
    public static long clamp(long value) {
        return Math.max(-CAP, Math.min(CAP, value));
    }

    /** {@code a + b} held to {@code [-CAP, CAP]}. */
    public static long add(long a, long b) {
        return clamp(clamp(a) + clamp(b));
    }

    /** {@code a * b} for non-negative factors, held to {@link #CAP}. */
    public static long multiply(long a, long b) {
        if (a <= 0 || b <= 0) {
            return 0;
        }
        return a > CAP / b ? CAP : Math.min(CAP, a * b);
    }
}
