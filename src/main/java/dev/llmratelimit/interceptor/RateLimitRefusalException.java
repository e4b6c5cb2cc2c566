package dev.llmratelimit.interceptor;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.http.ErrorResponse;
import dev.llmratelimit.http.ErrorStyle;
import jakarta.ejb.ApplicationException;

/**
 * A {@link RateLimited} call that was not made: the model's limits refused it (the subclass
 * {@link RateLimitExceededException}, HTTP 429), its model is unknown under
 * {@code reject-unknown-models} (404), the store failed under {@code on-store-failure=fail-closed}
 * (503), the limiter failed on it under {@code on-internal-error=fail-closed} (503), or its
 * arguments name no model (400). {@link #errorResponse()} is the answer the filter
 * would have sent; JAX-RS applications get it through the shipped exception mapper, other callers
 * catch this exception.
 *
 * <p>Refusals are ordinary control flow under load, so the exception carries no stack trace. For an
 * EJB it is an application exception that does not roll the transaction back: it reaches the caller
 * (and the JAX-RS mapper) as it is, logged by nobody. Where there is no EJB API the JVM ignores the
 * annotation, so the library does not depend on EJB.
 */
@ApplicationException(rollback = false)
public class RateLimitRefusalException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient ErrorResponse errorResponse;
    private final Admission.Outcome outcome;

    RateLimitRefusalException(ErrorResponse errorResponse, Admission.Outcome outcome) {
        super(errorResponse.message(), null, false, false);
        this.errorResponse = errorResponse;
        this.outcome = outcome;
    }

    /** The exception for an admission that does not permit the call; a 429 body in the given style. */
    static RateLimitRefusalException of(Admission admission, ErrorStyle style) {
        ErrorResponse response = ErrorResponse.refusal(admission, style);
        return admission.outcome() == Admission.Outcome.REFUSED
                ? new RateLimitExceededException(response, admission.plan(), admission.verdict())
                : new RateLimitRefusalException(response, admission.outcome());
    }

    /** The exception for a call the limiter failed on, under {@code on-internal-error=fail-closed}: 503. */
    static RateLimitRefusalException internalError() {
        return new RateLimitRefusalException(ErrorResponse.internalError(), null);
    }

    /** Status, headers and OpenAI-compatible body of the HTTP answer (docs/errors.md). */
    public ErrorResponse errorResponse() {
        return errorResponse;
    }

    public int status() {
        return errorResponse.status();
    }

    /** The engine's outcome; {@code null} when the call named no model or the limiter failed on it. */
    public Admission.Outcome outcome() {
        return outcome;
    }
}
