package dev.llmratelimit.observe;

import dev.llmratelimit.engine.RateLimiter;

/** Meters that measure nothing: no OpenTelemetry, or metrics switched off ({@link Metrics#NONE}). */
public class NoMetrics implements Metrics {

    /** Measures nothing, so needs no elapsed time; a subclass that measures decisions is timed. */
    @Override
    public boolean timesDecisions() {
        return getClass() != NoMetrics.class;
    }

    @Override
    public void watch(RateLimiter limiter) {
    }

    @Override
    public void watchBudgets(BudgetStatus.Source budgets) {
    }

    @Override
    public void spent(String scope, String model, long microDollars) {
    }

    @Override
    public void softBudgetReached(String scope) {
    }

    @Override
    public void internalError(String entryPoint) {
    }

    @Override
    public void close() {
    }
}
