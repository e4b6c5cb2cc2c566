package dev.llmratelimit.store;

import dev.llmratelimit.engine.CounterSnapshots;
import dev.llmratelimit.engine.CounterStore;
import dev.llmratelimit.engine.DecisionPlan;
import dev.llmratelimit.engine.ModelCounters;
import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.engine.Verdict;

import java.time.Clock;
import java.util.List;

/**
 * Keeps a failing store from adding its timeout to every request, through a {@link CircuitBreaker}.
 * Snapshots go through the same circuit, so a status page does not wait for a dead store either.
 */
public final class CircuitBreakingCounterStore implements CounterStore, CounterSnapshots {

    private final CounterStore delegate;
    private final CircuitBreaker breaker;

    public CircuitBreakingCounterStore(CounterStore delegate, CircuitBreakerSettings settings, Clock clock) {
        this(delegate, new CircuitBreaker(settings, clock));
    }

    public CircuitBreakingCounterStore(CounterStore delegate, CircuitBreaker breaker) {
        this.delegate = delegate;
        this.breaker = breaker;
    }

    @Override
    public Verdict decide(DecisionPlan plan, long tokenEstimate) {
        return breaker.call(() -> delegate.decide(plan, tokenEstimate));
    }

    @Override
    public void record(DecisionPlan plan, long tokens, long windowEnd) {
        breaker.run(() -> delegate.record(plan, tokens, windowEnd));
    }

    /** @throws StoreUnavailableException also when the store behind it takes no snapshots */
    @Override
    public ModelCounters snapshot(List<DecisionPlan> plans) {
        if (!(delegate instanceof CounterSnapshots snapshots)) {
            throw new StoreUnavailableException("The counter store takes no snapshots", null);
        }
        return breaker.call(() -> snapshots.snapshot(plans));
    }

    /** The circuit this store's calls go through. */
    public CircuitBreaker breaker() {
        return breaker;
    }

    /** Whether the circuit currently keeps calls from the store (a probe may still get through). */
    public boolean isOpen() {
        return breaker.isOpen();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
