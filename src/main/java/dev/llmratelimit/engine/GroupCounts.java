package dev.llmratelimit.engine;

/**
 * One group's counters as a store read them for a decision, before the request: the live window's
 * (or period's), the previous window's (sliding windows only; 0 otherwise) and the slots in flight.
 *
 * @param micros          micro-dollars spent (settled) in the period
 * @param reservedMicros  micro-dollars reserved by decisions not yet settled whose lease has not ended
 * @param remainingMillis milliseconds until the live window or period ends (0 without one)
 * @param windowEnd       the end of the live window on the store's clock, which names it
 */
public record GroupCounts(long requests, long tokens, long micros, long reservedMicros, long previousRequests, long previousTokens,
                          long inFlight, long remainingMillis, long windowEnd) {

    public static final GroupCounts EMPTY = new GroupCounts(0, 0, 0, 0, 0, 0, 0, 0, 0);

    /** What a budget holds: spent plus reserved. */
    public long heldMicros() {
        return Saturating.add(micros, reservedMicros);
    }
}
