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
    private final long reserved;
    private final ExpectedOutput expectedOutput;
    private final CallerTicket callerTicket;
    private final CallerRefusal callerRefusal;
    private final DecisionObserver observer;
    private final AtomicBoolean finished = new AtomicBoolean();

    /**
     * @param reserved       the tokens the decision reserved ({@code token-admission=reserve}), else 0
     * @param expectedOutput the expectation the estimate used, taught by the response; {@code null} if none
     */
    Admission(Outcome outcome, DecisionPlan plan, Verdict verdict, boolean shadow, CounterStore store,
              RateLimitType rateLimitType, long reserved, ExpectedOutput expectedOutput, DecisionObserver observer) {
        this(outcome, plan, verdict, shadow, store, rateLimitType, reserved, expectedOutput, null, null, observer);
    }

    Admission(Outcome outcome, DecisionPlan plan, Verdict verdict, boolean shadow,
              CounterStore store, RateLimitType rateLimitType, DecisionObserver observer) {
        this(outcome, plan, verdict, shadow, store, rateLimitType, 0, null, observer);
    }

    private Admission(Outcome outcome, DecisionPlan plan, Verdict verdict, boolean shadow, CounterStore store,
                      RateLimitType rateLimitType, long reserved, ExpectedOutput expectedOutput,
                      CallerTicket callerTicket, CallerRefusal callerRefusal, DecisionObserver observer) {
        this.outcome = outcome;
        this.plan = plan;
        this.verdict = verdict;
        this.shadow = shadow;
        this.store = store;
        this.rateLimitType = rateLimitType;
        this.reserved = reserved;
        this.expectedOutput = expectedOutput;
        this.callerTicket = callerTicket;
        this.callerRefusal = callerRefusal;
        this.observer = observer;
    }

    /** A request that a per-caller limit refused before any model counter was asked. */
    static Admission refusedByCaller(DecisionPlan plan, CallerRefusal refusal, boolean shadow,
                                     RateLimitType rateLimitType, DecisionObserver observer) {
        return new Admission(Outcome.REFUSED, plan, null, shadow, null, rateLimitType, 0, null, null, refusal, observer);
    }

    /** This admission, also holding the caller's counters until it finishes. */
    Admission holding(CallerTicket ticket) {
        return new Admission(outcome, plan, verdict, shadow, store, rateLimitType, reserved, expectedOutput, ticket, null,
                observer);
    }

    static Admission unlimited() {
        return new Admission(Outcome.UNLIMITED, null, null, false, null, RateLimitType.TOTAL, DecisionObserver.NONE);
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

    /** The tokens the decision reserved ({@code token-admission=reserve}); 0 when none. */
    public long reservedTokens() {
        return reserved;
    }

    /**
     * Records the response's usage: in {@code recorded} mode its tokens, in {@code reserve} mode the
     * difference to the estimate (a refund when negative), in the window the estimate went into; the
     * caller's tokens are recorded and its parallel slots given back. Only an admitted request
     * records: a request that shadow mode let through although it would have been refused records
     * nothing, as in enforce mode. Has no effect after the first call to any of the finishing methods.
     */
    public void complete(Usage usage) {
        if (finish(usage.tokens(rateLimitType))) {
            if (expectedOutput != null) {
                expectedOutput.learn(usage.completionTokens());
            }
            settle(usage);
        }
    }

    /**
     * Charges usage the filter worked out itself because the response reported none (a cut
     * stream: its prompt and what was streamed). Like {@link #complete}, except that it teaches the
     * model's expected output nothing.
     */
    public void charge(Usage usage) {
        if (finish(usage.tokens(rateLimitType))) {
            settle(usage);
        }
    }

    /**
     * Finishes a successful call whose usage is unknown: {@code recorded} mode records nothing,
     * {@code reserve} mode keeps the estimate as the charge.
     */
    public void completeWithoutUsage() {
        finish(0);
    }

    /**
     * Finishes a call that did not deliver (non-2xx answer, exception, nothing written):
     * {@code reserve} mode refunds the whole estimate.
     */
    public void abort() {
        if (finish(0)) {
            add(-reserved);
        }
    }

    /**
     * The first finishing call settles the caller's counters (its tokens, its parallel slots) and
     * returns whether it finishes an admitted request, whose model counters it must then settle.
     */
    private boolean finish(long callerTokens) {
        if (!finished.compareAndSet(false, true)) {
            return false;
        }
        if (callerTicket != null) {
            callerTicket.finish(callerTokens);
        }
        return outcome == Outcome.ADMITTED;
    }

    private void settle(Usage usage) {
        observer.recorded(plan, usage);
        if (plan.limitsTokens()) {
            add(usage.tokens(rateLimitType) - reserved);
        }
    }

    private void add(long tokens) {
        if (tokens == 0) {
            return;
        }
        try {
            if (reserved > 0) {
                store.record(plan, tokens, verdict.windowEnd());
            } else {
                store.record(plan, tokens);
            }
        } catch (StoreUnavailableException e) {
            observer.storeFailed(DecisionObserver.StoreOperation.RECORD);
            RECORD_FAILURES.log("Could not record " + tokens + " tokens for a request", e);
        }
    }
}
