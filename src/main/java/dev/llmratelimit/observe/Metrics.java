package dev.llmratelimit.observe;

import dev.llmratelimit.engine.DecisionObserver;
import dev.llmratelimit.engine.RateLimiter;

/**
 * The meters of one runtime: counts what the engine reports ({@link DecisionObserver}) and, once
 * {@link #watch watching} a limiter, reads its counters for the gauges when they are collected.
 * {@link #NONE} measures nothing (no OpenTelemetry, or metrics switched off).
 */
public interface Metrics extends DecisionObserver, AutoCloseable {

    Metrics NONE = new NoMetrics();

    /** Starts the gauges that read this limiter's counters (saturation, pool use, time left). */
    void watch(RateLimiter limiter);

    /**
     * Starts the budget gauges: limit and spent of the configured budgets, summed per scope kind and
     * model (no key, user or team name becomes a label).
     */
    void watchBudgets(BudgetStatus.Source budgets);

    /**
     * Counts money spent (for budgets): a settled charge in micro-dollars.
     *
     * @param scope {@code key}, {@code user} or {@code team}
     * @param model the request's model; a model the policy does not configure is counted as
     *              {@link DecisionLabels#UNCONFIGURED_MODEL}, never under its own name
     */
    void spent(String scope, String model, long microDollars);

    /** Counts a soft budget reached (once per budget, period and instance: {@link SoftBudgetWarnings}). */
    void softBudgetReached(String scope);

    /**
     * Counts a request the limiter failed on (a bug, not a store outage), whatever
     * {@code on-internal-error} then did with it.
     *
     * @param entryPoint {@code filter}, {@code interceptor} or {@code wait}
     */
    void internalError(String entryPoint);

    /** Stops the gauges. */
    @Override
    void close();
}
