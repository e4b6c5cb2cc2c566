package dev.llmratelimit.store;

import dev.llmratelimit.engine.CounterStore;
import dev.llmratelimit.engine.DecisionPlan;
import dev.llmratelimit.engine.Verdict;

import java.time.Clock;

/**
 * Keeps a failing store from adding its timeout to every request, through a {@link CircuitBreaker}.
 */
public final class CircuitBreakingCounterStore implements CounterStore {

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

    /** Whether the circuit currently keeps calls from the store (a probe may still get through). */
    public boolean isOpen() {
        return breaker.isOpen();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
