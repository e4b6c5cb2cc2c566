package dev.llmratelimit.interceptor;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.Refusal;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.http.ErrorResponse;

/**
 * A {@link RateLimited} call refused by a limit of its model or pool, or by a per-caller limit:
 * HTTP 429. The message is the message of docs/errors.md, e.g.
 * {@code Model capacity reached for gpt-4o. Priority: prod, ...}.
 */
public class RateLimitExceededException extends RateLimitRefusalException {

    private static final long serialVersionUID = 1L;

    private final transient Plan plan;
    private final transient Verdict verdict;

    RateLimitExceededException(ErrorResponse errorResponse, Plan plan, Verdict verdict) {
        super(errorResponse, Admission.Outcome.REFUSED);
        this.plan = plan;
        this.verdict = verdict;
    }

    /** The store's verdict: which limit refused, its figures, the model's saturation, time to reset. */
    public Verdict verdict() {
        return verdict;
    }

    /** The group and limit that refused the call (a model, pool or caller scope). */
    public Refusal refusal() {
        return verdict.refusal();
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
        return verdict.retryAfterSeconds();
    }
}
