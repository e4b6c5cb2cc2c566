package dev.llmratelimit.store;

import dev.llmratelimit.engine.CallerHold;
import dev.llmratelimit.engine.CallerLimitStore;
import dev.llmratelimit.engine.CallerPlan;
import dev.llmratelimit.engine.CallerVerdict;

/** Keeps a failing caller store from adding its timeout to every request, through a {@link CircuitBreaker}. */
public final class CircuitBreakingCallerLimitStore implements CallerLimitStore {

    private final CallerLimitStore delegate;
    private final CircuitBreaker breaker;

    public CircuitBreakingCallerLimitStore(CallerLimitStore delegate, CircuitBreaker breaker) {
        this.delegate = delegate;
        this.breaker = breaker;
    }

    @Override
    public CallerVerdict acquire(CallerPlan plan) {
        return breaker.call(() -> delegate.acquire(plan));
    }

    @Override
    public void release(CallerPlan plan, CallerHold hold) {
        breaker.run(() -> delegate.release(plan, hold));
    }

    @Override
    public void record(CallerPlan plan, long tokens) {
        breaker.run(() -> delegate.record(plan, tokens));
    }

    @Override
    public void compensate(CallerPlan plan, CallerHold hold) {
        breaker.run(() -> delegate.compensate(plan, hold));
    }

    @Override
    public void close() {
        delegate.close();
    }
}
