package dev.llmratelimit.engine;

import java.util.List;

/**
 * The read-only side of a {@link CounterStore}: a model's counters as a decision would see them
 * now, without starting, rolling or changing any window. For the status page and the gauges; a
 * remote store answers each snapshot in one round trip.
 */
public interface CounterSnapshots {

    /**
     * @param plans the plans of every pool of one model, in pool-index order
     * @throws StoreUnavailableException when the store cannot answer
     */
    ModelCounters snapshot(List<DecisionPlan> plans);
}
