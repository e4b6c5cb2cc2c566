package dev.llmratelimit.engine;

/**
 * Where the counters live. A store receives one whole decision and answers one verdict, so that a
 * remote store can run it as one atomic operation in one round trip.
 *
 * <p>Semantics every store must follow (the contract test suite checks them): a fixed window per
 * model starts with the first decision or recording when no window is live and lasts
 * {@link DecisionPlan#windowMillis()}; saturation is computed from the model counters inside the
 * decision; a refused request changes no counter.
 */
public interface CounterStore extends AutoCloseable {

    /**
     * Decides one request: reads, chooses generous or strict mode, checks and (when every enforced
     * limit passes) counts the request on the model and its pool, all atomically.
     *
     * @throws StoreUnavailableException when the store cannot answer
     */
    Verdict decide(DecisionPlan plan);

    /**
     * Adds tokens to the model and pool token counters of the live window without extending it.
     *
     * @throws StoreUnavailableException when the store cannot answer
     */
    void record(DecisionPlan plan, long tokens);

    @Override
    default void close() {
    }
}
