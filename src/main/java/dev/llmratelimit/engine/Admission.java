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
    private final CallerTicket callerTicket;
    private final CallerRefusal callerRefusal;
    private final AtomicBoolean finished = new AtomicBoolean();

    Admission(Outcome outcome, DecisionPlan plan, Verdict verdict, boolean shadow,
              CounterStore store, RateLimitType rateLimitType) {
        this(outcome, plan, verdict, shadow, store, rateLimitType, null, null);
    }

    private Admission(Outcome outcome, DecisionPlan plan, Verdict verdict, boolean shadow, CounterStore store,
                      RateLimitType rateLimitType, CallerTicket callerTicket, CallerRefusal callerRefusal) {
        this.outcome = outcome;
        this.plan = plan;
        this.verdict = verdict;
        this.shadow = shadow;
        this.store = store;
        this.rateLimitType = rateLimitType;
        this.callerTicket = callerTicket;
        this.callerRefusal = callerRefusal;
    }

    /** A request that a per-caller limit refused before any model counter was asked. */
    static Admission refusedByCaller(DecisionPlan plan, CallerRefusal refusal, boolean shadow, RateLimitType rateLimitType) {
        return new Admission(Outcome.REFUSED, plan, null, shadow, null, rateLimitType, null, refusal);
    }

    /** This admission, also holding the caller's counters until it finishes. */
    Admission holding(CallerTicket ticket) {
        return new Admission(outcome, plan, verdict, shadow, store, rateLimitType, ticket, null);
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

    /**
     * The store's verdict; {@code null} when no decision was made (unconfigured model, store failure,
     * refusal by a caller limit).
     */
    public Verdict verdict() {
        return verdict;
    }

    /** The per-caller limit that refused the request, or {@code null}. */
    public CallerRefusal callerRefusal() {
        return callerRefusal;
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
     * Records the response's usage and gives the caller's parallel slots back. Only an admitted
     * request records: a request that shadow mode let through although it would have been refused
     * records nothing, as in enforce mode. Has no effect after the first call to {@code complete}
     * or {@link #abort}.
     */
    public void complete(Usage usage) {
        if (!finished.compareAndSet(false, true)) {
            return;
        }
        long tokens = usage.tokens(rateLimitType);
        if (callerTicket != null) {
            callerTicket.finish(tokens);
        }
        if (outcome != Outcome.ADMITTED || tokens == 0 || !plan.limitsTokens()) {
            return;
        }
        try {
            store.record(plan, tokens);
        } catch (StoreUnavailableException e) {
            RECORD_FAILURES.log("Could not record " + tokens + " tokens for a request", e);
        }
    }

    /** Finishes the request without usage (non-2xx answer, exception before any output); gives the slots back. */
    public void abort() {
        if (finished.compareAndSet(false, true) && callerTicket != null) {
            callerTicket.finish(0);
        }
    }
}
