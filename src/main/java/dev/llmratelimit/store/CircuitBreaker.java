package dev.llmratelimit.store;

import dev.llmratelimit.engine.StoreUnavailableException;

import java.time.Clock;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The state of one store endpoint's circuit, fed only by that endpoint's calls: after a number of
 * consecutive {@link StoreUnavailableException}s it opens and calls fail at once for the back-off
 * period; then one call at a time is let through as a probe, every probe interval, so recovery
 * begins as soon as the connection is back (a probe sent while the client still reconnects costs
 * one probe interval, not another back-off); a success closes it.
 */
public final class CircuitBreaker {

    /** Thrown while the circuit is open; one instance per circuit, without a stack trace. */
    private final StoreUnavailableException skipped;

    private final int failureThreshold;
    private final long backoffMillis;
    private final long probeIntervalMillis;
    private final Clock clock;
    /** Written after {@link #retryAt}, so a reader that sees the circuit open sees its back-off too. */
    private volatile int consecutiveFailures;
    private volatile long retryAt;
    private final AtomicBoolean probing = new AtomicBoolean();

    public CircuitBreaker(CircuitBreakerSettings settings, Clock clock) {
        this(settings, clock, "Counter store");
    }

    /** @param storeName names the store (or node) in the failure of a skipped call */
    public CircuitBreaker(CircuitBreakerSettings settings, Clock clock, String storeName) {
        this.skipped = new StoreSkippedException(storeName);
        this.failureThreshold = settings.failureThreshold();
        this.backoffMillis = settings.backoff().toMillis();
        this.probeIntervalMillis = settings.probeInterval().toMillis();
        this.clock = clock;
    }

    /** Whether the circuit currently keeps calls from the store (a probe may still get through). */
    public boolean isOpen() {
        return consecutiveFailures >= failureThreshold;
    }

    /**
     * Runs one store operation through the circuit.
     *
     * @throws StoreUnavailableException when the operation fails or the circuit makes it skip the store
     */
    public <T> T call(Supplier<T> operation) {
        boolean probe = permit();
        try {
            T result = operation.get();
            succeeded();
            return result;
        } catch (StoreUnavailableException e) {
            failed(probe);
            throw e;
        } finally {
            if (probe) {
                probing.set(false);
            }
        }
    }

    /** {@link #call} for an operation without result. */
    public void run(Runnable operation) {
        call(() -> {
            operation.run();
            return null;
        });
    }

    /**
     * @return true when this call is the probe of an open circuit; 
     * @throws StoreUnavailableException when the call must skip the store
     */
    private boolean permit() {
        if (consecutiveFailures < failureThreshold) {
            return false;
        }
        if (clock.millis() < retryAt || !probing.compareAndSet(false, true)) {
            throw skipped;
        }
        return true;
    }

    private void succeeded() {
        if (consecutiveFailures != 0) {
            consecutiveFailures = 0;
        }
    }

    private synchronized void failed(boolean probe) {
        int failures = consecutiveFailures + 1;
        if (probe) {
            retryAt = clock.millis() + probeIntervalMillis;
        } else if (failures >= failureThreshold) {
            retryAt = clock.millis() + backoffMillis;
        }
        consecutiveFailures = failures;
    }

    private static final class StoreSkippedException extends StoreUnavailableException {
        StoreSkippedException(String storeName) {
            super(storeName + " skipped after repeated failures (circuit open)", null, false);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }
}
