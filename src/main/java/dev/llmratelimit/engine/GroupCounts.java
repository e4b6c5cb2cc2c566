package dev.llmratelimit.engine;

/**
 * One group's counters as a store read them for a decision, before the request: per windowed
 * {@link Dimension} the live window's (or period's) and the previous window's (sliding windows
 * only; 0 otherwise), and the slots in flight. A store may hand out a view of its own counters
 * (the memory store does, under its locks): read it only while the decision runs, before anything
 * is applied.
 */
public interface GroupCounts {

    GroupCounts EMPTY = of(new long[Dimension.WINDOWED.size()], new long[Dimension.WINDOWED.size()], 0, 0, 0, 0, 0);

    /**
     * Counters read as figures.
     *
     * @param current         per {@link Dimension#WINDOWED}, the live window's counts
     * @param previous        per {@link Dimension#WINDOWED}, the previous window's counts
     * @param micros          micro-dollars spent (settled) in the period
     * @param reservedMicros  micro-dollars reserved by decisions not yet settled whose lease has not ended
     * @param remainingMillis milliseconds until the live window or period ends (0 without one)
     * @param windowEnd       the end of the live window on the store's clock, which names it
     */
    static GroupCounts of(long[] current, long[] previous, long micros, long reservedMicros, long inFlight,
                          long remainingMillis, long windowEnd) {
        return new Read(current, previous, micros, reservedMicros, inFlight, remainingMillis, windowEnd);
    }

    /** Per {@link Dimension#WINDOWED}, the live window's counts. */
    long[] current();

    /** Per {@link Dimension#WINDOWED}, the previous window's counts. */
    long[] previous();

    /** Micro-dollars spent (settled) in the period. */
    long micros();

    /** Micro-dollars reserved by decisions not yet settled whose lease has not ended. */
    long reservedMicros();

    /** Parallel slots held. */
    long inFlight();

    /** Milliseconds until the live window or period ends (0 without one). */
    long remainingMillis();

    /** The end of the live window on the store's clock, which names it. */
    long windowEnd();

    default long current(Dimension dimension) {
        return current()[dimension.index()];
    }

    default long previous(Dimension dimension) {
        return previous()[dimension.index()];
    }

    /** What a budget holds: spent plus reserved. */
    default long heldMicros() {
        return Saturating.add(micros(), reservedMicros());
    }

    /** Figures a store read and copied. */
    record Read(long[] current, long[] previous, long micros, long reservedMicros, long inFlight,
                long remainingMillis, long windowEnd) implements GroupCounts {
    }
}
