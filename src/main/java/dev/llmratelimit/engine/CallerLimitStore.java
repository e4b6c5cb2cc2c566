package dev.llmratelimit.engine;

/**
 * Where per-caller counters live, apart from the model counters of {@link CounterStore} (in a Redis
 * cluster they are in another slot). Every operation is one atomic step, one round trip for a
 * remote store; every window arithmetic uses the store's clock.
 *
 * <p>Windows are fixed per counter: one starts with the first acquisition or recording when none
 * is live and lasts {@link CallerPlan#windowMillis()}. Parallel slots expire after
 * {@link CallerPlan#leaseMillis()} if nobody releases them.
 */
public interface CallerLimitStore extends AutoCloseable {

    /**
     * Checks every counter of the plan (requests: {@code current + 1 <= limit}; tokens:
     * {@code current < limit}; parallel: {@code in flight + 1 <= limit}) and, only if all pass, counts
     * the request in every windowed counter and takes one slot in every parallel-limited one.
     * A refusal changes nothing.
     *
     * @throws StoreUnavailableException when the store cannot answer
     */
    CallerVerdict acquire(CallerPlan plan);

    /** Gives the hold's parallel slots back; a slot already expired or released is ignored. */
    void release(CallerPlan plan, CallerHold hold);

    /** Adds tokens to the token counters of the plan's live windows (starting one where none is live). */
    void record(CallerPlan plan, long tokens);

    /**
     * Undoes an acquisition that the model decision then refused: releases its slots and takes the
     * request back from every counter whose window is still the one that counted it.
     */
    void compensate(CallerPlan plan, CallerHold hold);

    @Override
    default void close() {
    }
}
