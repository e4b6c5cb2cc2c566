package dev.llmratelimit.engine;

/**
 * One group's counters as a store read them for a decision, before the request: per windowed
 * {@link Dimension} the live window's (or period's) and the previous window's (sliding windows
 * only; 0 otherwise), and the slots in flight.
 *
 * @param current         per {@link Dimension#WINDOWED}, the live window's counts
 * @param previous        per {@link Dimension#WINDOWED}, the previous window's counts
 * @param micros          micro-dollars spent (settled) in the period
 * @param reservedMicros  micro-dollars reserved by decisions not yet settled whose lease has not ended
 * @param remainingMillis milliseconds until the live window or period ends (0 without one)
 * @param windowEnd       the end of the live window on the store's clock, which names it
 */
public record GroupCounts(long[] current, long[] previous, long micros, long reservedMicros, long inFlight,
                          long remainingMillis, long windowEnd) {

    public static final GroupCounts EMPTY = new GroupCounts(new long[Dimension.WINDOWED.size()],
            new long[Dimension.WINDOWED.size()], 0, 0, 0, 0, 0);

    public long current(Dimension dimension) {
        return current[dimension.index()];
    }

    public long previous(Dimension dimension) {
        return previous[dimension.index()];
    }

    /** What a budget holds: spent plus reserved. */
    public long heldMicros() {
        return Saturating.add(micros, reservedMicros);
    }
}
