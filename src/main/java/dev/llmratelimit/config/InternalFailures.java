package dev.llmratelimit.config;

import dev.llmratelimit.engine.ThrottledLog;
import dev.llmratelimit.policy.InternalErrorMode;

/**
 * What the limiter does when it fails on a request itself ({@code on-internal-error}): the failure
 * is logged with its stack trace (at most once per 10 s), counted in metrics, and then the request
 * is refused with 503 ({@code fail-closed}, the default) or let through without limits
 * ({@code fail-open}). The filter, the interceptor and the wait room all ask here, so a bug never
 * serves a request unlimited unless the configuration says so.
 */
public final class InternalFailures {

    /** Where the failure happened, as metrics name it. */
    public enum EntryPoint {
        FILTER("filter"), INTERCEPTOR("interceptor"), WAIT_ROOM("wait");

        private final String label;

        EntryPoint(String label) {
            this.label = label;
        }
    }

    private static final ThrottledLog LOG = new ThrottledLog(InternalFailures.class, System.Logger.Level.ERROR);

    private InternalFailures() {
    }

    /**
     * Reports a failure of the limiter on one request.
     *
     * @return whether the request goes on without limits ({@code fail-open}); otherwise it is to be
     *         refused with {@link dev.llmratelimit.http.ErrorResponse#internalError()}
     */
    public static boolean failOpen(RateLimitRuntime runtime, EntryPoint where, Throwable failure) {
        boolean open;
        try {
            open = runtime.settings().onInternalError() == InternalErrorMode.FAIL_OPEN;
            runtime.metrics().internalError(where.label);
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
            open = false;
        }
        LOG.logWithStack("Rate limiting failed in the " + where.label + "; request "
                + (open ? "passed through unlimited (on-internal-error=fail-open)" : "refused with 503 (on-internal-error=fail-closed)"),
                failure);
        return open;
    }
}
