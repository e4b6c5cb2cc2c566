package dev.llmratelimit.store;

import dev.llmratelimit.engine.CounterGroup;
import java.util.List;
import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.ModelCounters;
import dev.llmratelimit.engine.ModelGroups;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.Settlement;
import dev.llmratelimit.engine.Verdict;

/** Keeps a failing store from adding its timeout to every request, through a {@link CircuitBreaker}. */
public final class CircuitBreakingAdmissionStore implements AdmissionStore {

    private final AdmissionStore delegate;
    private final CircuitBreaker breaker;

    public CircuitBreakingAdmissionStore(AdmissionStore delegate, CircuitBreaker breaker) {
        this.delegate = delegate;
        this.breaker = breaker;
    }

    @Override
    public Verdict decide(Plan plan) {
        return breaker.call(() -> delegate.decide(plan));
    }

    @Override
    public void settle(Plan plan, Settlement settlement) {
        breaker.run(() -> delegate.settle(plan, settlement));
    }

    /** Snapshots go through the same circuit, so a status page does not wait for a dead store either. */
    @Override
    public ModelCounters snapshot(ModelGroups model) {
        return breaker.call(() -> delegate.snapshot(model));
    }

    @Override
    public long[][] budgets(List<CounterGroup> groups) {
        return breaker.call(() -> delegate.budgets(groups));
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
