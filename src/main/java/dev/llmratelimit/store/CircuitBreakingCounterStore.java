package dev.llmratelimit.store;

import dev.llmratelimit.engine.CounterStore;
import dev.llmratelimit.engine.DecisionPlan;
import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.engine.Verdict;

import java.time.Clock;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Keeps a failing store from adding its timeout to every request. After a number of consecutive
 * {@link StoreUnavailableException}s the circuit opens: calls fail at once, without reaching the
 * store, for the back-off period. Then one call at a time is let through as a probe; a success
 * closes the circuit, a failure opens it for another back-off.
 */
public final class CircuitBreakingCounterStore implements CounterStore {

    /** Thrown while the circuit is open; one shared instance, without a stack trace. */
    private static final StoreUnavailableException SKIPPED = new StoreSkippedException();

    private final CounterStore delegate;
    private final int failureThreshold;
    private final long backoffMillis;
    private final Clock clock;
    /** Written after {@link #retryAt}, so a reader that sees the circuit open sees its back-off too. */
    private volatile int consecutiveFailures;
    private volatile long retryAt;
    private final AtomicBoolean probing = new AtomicBoolean();

    public CircuitBreakingCounterStore(CounterStore delegate, CircuitBreakerSettings settings, Clock clock) {
        this.delegate = delegate;
        this.failureThreshold = settings.failureThreshold();
        this.backoffMillis = settings.backoff().toMillis();
        this.clock = clock;
    }

    @Override
    public Verdict decide(DecisionPlan plan) {
        return guarded(() -> delegate.decide(plan));
    }

    @Override
    public void record(DecisionPlan plan, long tokens) {
        guarded(() -> {
            delegate.record(plan, tokens);
            return null;
        });
    }

    /** Runs one store call through the circuit: counts its success or failure, frees the probe slot. */
    private <T> T guarded(Supplier<T> call) {
        boolean probe = permit();
        try {
            T result = call.get();
            succeeded();
            return result;
        } catch (StoreUnavailableException e) {
            failed();
            throw e;
        } finally {
            if (probe) {
                probing.set(false);
            }
        }
    }

    /** Whether the circuit currently keeps calls from the store (a probe may still get through). */
    public boolean isOpen() {
        return consecutiveFailures >= failureThreshold;
    }

    @Override
    public void close() {
        delegate.close();
    }

    /**
     * @return true when this call is the probe of an open circuit
     * @throws StoreUnavailableException when the call must skip the store
     */
    private boolean permit() {
        if (consecutiveFailures < failureThreshold) {
            return false;
        }
        if (clock.millis() < retryAt || !probing.compareAndSet(false, true)) {
            throw SKIPPED;
        }
        return true;
    }

    private void succeeded() {
        if (consecutiveFailures != 0) {
            consecutiveFailures = 0;
        }
    }

    private synchronized void failed() {
        int failures = consecutiveFailures + 1;
        if (failures >= failureThreshold) {
            retryAt = clock.millis() + backoffMillis;
        }
        consecutiveFailures = failures;
    }

    private static final class StoreSkippedException extends StoreUnavailableException {
        StoreSkippedException() {
            super("Counter store skipped after repeated failures (circuit open)", null);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }
}
