package dev.llmratelimit.engine;

import dev.llmratelimit.policy.RateLimitType;
import dev.llmratelimit.usage.Usage;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The ticket of one request: the outcome of its decision, and the obligation to finish it exactly
 * once, with the usage of the response ({@link #complete}) or without ({@link #abort}).
 */
public final class Admission {

    public enum Outcome {
        /** The model is not configured (or not limited): nothing is counted. */
        UNLIMITED,
        ADMITTED,
        REFUSED,
        /** The model is not configured and {@code reject-unknown-models} is on. */
        UNKNOWN_MODEL,
        /** The store failed; {@code on-store-failure=fail-open} lets the request through. */
        STORE_FAILED_OPEN,
        /** The store failed; {@code on-store-failure=fail-closed} refuses the request. */
        STORE_FAILED_CLOSED
    }

    private static final ThrottledLog RECORD_FAILURES = new ThrottledLog(Admission.class, System.Logger.Level.WARNING);

    private final Outcome outcome;
    private final DecisionPlan plan;
    private final Verdict verdict;
    private final boolean shadow;
    private final CounterStore store;
    private final RateLimitType rateLimitType;
    private final AtomicBoolean finished = new AtomicBoolean();

    Admission(Outcome outcome, DecisionPlan plan, Verdict verdict, boolean shadow,
              CounterStore store, RateLimitType rateLimitType) {
        this.outcome = outcome;
        this.plan = plan;
        this.verdict = verdict;
        this.shadow = shadow;
        this.store = store;
        this.rateLimitType = rateLimitType;
    }

    static Admission unlimited() {
        return new Admission(Outcome.UNLIMITED, null, null, false, null, RateLimitType.TOTAL);
    }

    public Outcome outcome() {
        return outcome;
    }

    /** The plan of the decision; {@code null} for an unconfigured model. */
    public DecisionPlan plan() {
        return plan;
    }

    /** The store's verdict; {@code null} when no decision was made (unconfigured model, store failure). */
    public Verdict verdict() {
        return verdict;
    }

    public boolean isShadow() {
        return shadow;
    }

    /** Whether the application may be called. In shadow mode every request may. */
    public boolean permitsCall() {
        return shadow || switch (outcome) {
            case UNLIMITED, ADMITTED, STORE_FAILED_OPEN -> true;
            case REFUSED, UNKNOWN_MODEL, STORE_FAILED_CLOSED -> false;
        };
    }

    /**
     * Records the response's usage. Only an admitted request records: a request that shadow mode
     * let through although it would have been refused records nothing, as in enforce mode.
     * Has no effect after the first call to {@code complete} or {@link #abort}.
     */
    public void complete(Usage usage) {
        if (!finished.compareAndSet(false, true) || outcome != Outcome.ADMITTED) {
            return;
        }
        long tokens = usage.tokens(rateLimitType);
        if (tokens == 0 || !plan.limitsTokens()) {
            return;
        }
        try {
            store.record(plan, tokens);
        } catch (StoreUnavailableException e) {
            RECORD_FAILURES.log("Could not record " + tokens + " tokens for a request", e);
        }
    }

    /** Finishes the request without usage (non-2xx answer, exception before any output). */
    public void abort() {
        finished.set(true);
    }
}
