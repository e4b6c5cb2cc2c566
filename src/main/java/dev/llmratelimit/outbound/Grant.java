package dev.llmratelimit.outbound;

/**
 * A store's answer to one acquisition.
 *
 * @param outcome    taken, or why not
 * @param waitMillis for {@link Outcome#TAKEN}: how long the caller waits before it may call (its place in
 *                   the queue, already reserved); for {@link Outcome#WAIT_TOO_LONG}: the wait it would
 *                   have had; 0 otherwise
 * @param shortOf    when refused, the bucket that refused it: the one the estimate exceeds, or the one with
 *                   the longest wait ({@code null} when a provider's pause is longer); {@code null} when taken
 */
public record Grant(Outcome outcome, long waitMillis, Dimension shortOf) {

    public enum Outcome {
        /** Every limited bucket was charged; call after {@code waitMillis}. */
        TAKEN,
        /** Nothing was charged: the wait would exceed {@code max-wait}. */
        WAIT_TOO_LONG,
        /** Nothing was charged: the estimate is above a bucket's capacity, so no wait can ever fit it. */
        NEVER_FITS
    }

    public static Grant taken(long waitMillis) {
        return new Grant(Outcome.TAKEN, waitMillis, null);
    }

    public static Grant waitTooLong(long waitMillis, Dimension shortOf) {
        return new Grant(Outcome.WAIT_TOO_LONG, waitMillis, shortOf);
    }

    public static Grant neverFits(Dimension shortOf) {
        return new Grant(Outcome.NEVER_FITS, 0, shortOf);
    }
}
