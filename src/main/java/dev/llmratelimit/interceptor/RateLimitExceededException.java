package dev.llmratelimit.interceptor;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.CallerRefusal;
import dev.llmratelimit.engine.DecisionPlan;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.http.ErrorResponse;

/**
 * A {@link RateLimited} call refused by a limit of its model or pool, or by a per-caller limit:
 * HTTP 429. The message is the SPEC section 6 message, e.g.
 * {@code Model capacity reached for gpt-4o. Priority: prod, ...}.
 */
public class RateLimitExceededException extends RateLimitRefusalException {

    private static final long serialVersionUID = 1L;

    private final transient DecisionPlan plan;
    private final transient Verdict verdict;
    private final transient CallerRefusal callerRefusal;

    RateLimitExceededException(ErrorResponse errorResponse, DecisionPlan plan, Verdict verdict,
                               CallerRefusal callerRefusal) {
        super(errorResponse, Admission.Outcome.REFUSED);
        this.plan = plan;
        this.verdict = verdict;
        this.callerRefusal = callerRefusal;
    }

    /**
     * The store's verdict: which limit refused, its figures, the model's saturation, time to reset;
     * {@code null} when a per-caller limit refused the call (see {@link #callerRefusal()}).
     */
    public Verdict verdict() {
        return verdict;
    }

    /** The per-caller limit that refused the call, or {@code null} when a model or pool limit did. */
    public CallerRefusal callerRefusal() {
        return callerRefusal;
    }

    public String model() {
        return plan.model();
    }

    /** The pool the call was counted in: a configured priority, or {@code default}. */
    public String priority() {
        return plan.pool();
    }

    /** Whole seconds until the window resets, at least 1. */
    public long retryAfterSeconds() {
        return callerRefusal != null ? callerRefusal.retryAfterSeconds() : verdict.retryAfterSeconds();
    }
}
