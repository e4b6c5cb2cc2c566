package dev.llmratelimit.engine;

/**
 * Where the counters live. A store receives one whole decision and answers one verdict, so that a
 * remote store can run it as one atomic operation in one round trip.
 *
 * <p>Semantics every store must follow (the contract test suite checks them): a window per model
 * starts with the first decision or recording when no window is live and lasts
 * {@link DecisionPlan#windowMillis()}. With a fixed window the next one starts with the next request
 * after it ended; with a sliding window ({@link DecisionPlan#slidingWindow()}) the next one follows
 * on without a gap as long as the previous one is still inside the sliding span, and the previous
 * window's counters count as {@code ceil(previous * msLeftInWindow / windowMillis)}. Saturation is
 * computed from the model counters inside the decision; a refused request changes no counter.
 */
public interface CounterStore extends AutoCloseable {

    /** The window argument of {@link #record(DecisionPlan, long, long)} that means "the live window". */
    long LIVE_WINDOW = 0;

    /**
     * Decides one request: reads, chooses generous or strict mode, checks and (when every enforced
     * limit passes) counts the request on the model and its pool, all atomically
     * ({@link DecisionRule} is the rule).
     *
     * @param tokenEstimate 0 to check tokens against recorded usage only ({@code token-admission=recorded});
     *                      above 0, the tokens to check as {@code current + estimate <= limit} and to add to
     *                      the model and pool token counters with the request ({@code reserve})
     * @throws StoreUnavailableException when the store cannot answer
     */
    Verdict decide(DecisionPlan plan, long tokenEstimate);

    /** Decides one request without reserving tokens. */
    default Verdict decide(DecisionPlan plan) {
        return decide(plan, 0);
    }

    /**
     * Adds tokens (negative: takes them back) to the model and pool token counters of one window,
     * never extending it and never taking a counter below zero.
     *
     * @param windowEnd {@link #LIVE_WINDOW}: the live window, started when none is live; otherwise the
     *                  {@link Verdict#windowEnd()} of a decision: only that window is changed, and
     *                  nothing at all once it no longer counts (a fixed window that ended, a sliding
     *                  window that left the sliding span)
     * @throws StoreUnavailableException when the store cannot answer
     */
    void record(DecisionPlan plan, long tokens, long windowEnd);

    /** Adds tokens to the live window. */
    default void record(DecisionPlan plan, long tokens) {
        record(plan, tokens, LIVE_WINDOW);
    }

    @Override
    default void close() {
    }
}
