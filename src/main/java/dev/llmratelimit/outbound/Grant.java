package dev.llmratelimit.outbound;

/**
 * A store's answer to one acquisition.
 *
 * @param outcome    taken, or why not
 * @param waitMillis for {@link Outcome#TAKEN}: how long the caller waits before it may call (its place in
 *                   the queue, already reserved); for {@link Outcome#WAIT_TOO_LONG}: the wait it would
 *                   have had; 0 otherwise
 */
public record Grant(Outcome outcome, long waitMillis) {

    public enum Outcome {
        /** Both buckets were charged; call after {@code waitMillis}. */
        TAKEN,
        /** Nothing was charged: the wait would exceed {@code max-wait}. */
        WAIT_TOO_LONG,
        /** Nothing was charged: the estimate is above a bucket's capacity, so no wait can ever fit it. */
        NEVER_FITS
    }

    public static Grant taken(long waitMillis) {
        return new Grant(Outcome.TAKEN, waitMillis);
    }
}
