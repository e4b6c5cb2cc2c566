package dev.llmratelimit.engine;

import java.time.Clock;
import java.util.List;

/**
 * Where counters live. A store executes a whole {@link Plan} in one atomic step and answers one
 * {@link Verdict} ({@link PlanRule} is the rule), and settles it in one more step; a remote store
 * spends one round trip on each (Redis Cluster: one per hash slot involved).
 *
 * <p>Windows (the contract suite checks them): a group's rolling window starts with the first
 * request or recording when none is live and lasts {@link GroupWindow#millis()}; groups of one
 * model share the model's window. With a fixed window the next one starts with the next request
 * after it ended; with a sliding one it follows on without a gap while the previous one is inside
 * the sliding span, whose counters then count as {@code ceil(previous * msLeft / window)}. A period
 * window is its period. Parallel slots and the store's record of a decision live at most
 * {@link Plan#leaseMillis()}.
 */
public interface AdmissionStore extends AutoCloseable {

    /**
     * Reads every group, checks the enforced limits and, only if all pass, applies every group's
     * increments and records what it applied under the plan's id ({@link Plan#id()}: a store in
     * this JVM keeps the record on the id object, a shared store under its name). A refusal changes
     * no counter.
     *
     * @throws StoreUnavailableException when the store cannot answer (the decision may still run
     *         later), or when the request id was cancelled before the decision ran
     */
    Verdict decide(Plan plan);

    /**
     * {@link #decide(Plan)} for a caller that has just read {@code clock} as {@code now}: a store
     * whose counters run on the same clock decides at {@code now} instead of reading it again.
     */
    default Verdict decide(Plan plan, Clock clock, long now) {
        return decide(plan);
    }

    /**
     * Finishes the decision the plan's id names (settle through the plan it was decided with: the
     * memory store knows its decisions by the id object): records the usage, settles reservations,
     * releases slots, and forgets the decision, so a second call changes nothing. A decision the
     * store has no record of (never applied, already finished, or its lease ended) is left alone,
     * except that a {@link Settlement#CANCEL} leaves a mark that a late-running decision obeys, and
     * a {@link Settlement#asLate()} one records its usage in the live windows. (The JDBC budget store,
     * the store of record, tells "never applied" from "finished" and charges any settlement of a call
     * it has not charged yet, once.)
     *
     * @throws StoreUnavailableException when the store cannot answer
     */
    void settle(Plan plan, Settlement settlement);

    /**
     * {@link #settle(Plan, Settlement)} for a caller that has just read {@code clock} as {@code now}:
     * a store whose counters run on the same clock settles at {@code now} instead of reading it again.
     */
    default void settle(Plan plan, Settlement settlement, Clock clock, long now) {
        settle(plan, settlement);
    }

    /**
     * A model's counters as its next decision would see them now, read without starting, rolling or
     * changing any window: for the status page and the gauges (one round trip for a remote store).
     *
     * @throws StoreUnavailableException when the store cannot answer, or takes no snapshots
     */
    default ModelCounters snapshot(ModelGroups model) {
        throw new StoreUnavailableException("This store takes no snapshots", null);
    }

    /**
     * What each budget group holds in its period now, {@code {spent, reserved}} micro-dollars, read
     * without changing anything (reservations whose lease ended do not count): for the status page
     * and the gauges. A budget nobody spent on yet holds {@code {0, 0}}.
     *
     * @throws StoreUnavailableException when the store cannot answer, or keeps no budgets
     */
    default long[][] budgets(List<CounterGroup> groups) {
        throw new StoreUnavailableException("This store keeps no budgets", null);
    }

    /**
     * Whether what this store holds (counts, slots, reservations, money) outlives this JVM, so that
     * a stop must settle the calls still in flight in it. A store kept in this JVM's memory ends with
     * the runtime that owns it and says {@code false}.
     */
    default boolean outlivesThisJvm() {
        return true;
    }

    @Override
    default void close() {
    }
}
