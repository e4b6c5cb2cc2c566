package dev.llmratelimit.testsupport;

import dev.llmratelimit.engine.CounterStore;
import dev.llmratelimit.engine.DecisionPlan;
import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.engine.Verdict;

/** A counter store whose server never answers: every call fails as a timed-out store would. */
public final class UnavailableCounterStore implements CounterStore {

    @Override
    public Verdict decide(DecisionPlan plan, long tokenEstimate) {
        throw new StoreUnavailableException("down", null);
    }

    @Override
    public void record(DecisionPlan plan, long tokens, long windowEnd) {
        throw new StoreUnavailableException("down", null);
    }
}
