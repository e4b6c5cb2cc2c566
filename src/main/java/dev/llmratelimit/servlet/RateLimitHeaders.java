package dev.llmratelimit.servlet;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.CallerRefusal;
import dev.llmratelimit.engine.Verdict;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.Locale;

/** The {@code x-ratelimit-*} headers and the 429 answer of SPEC section 6. */
final class RateLimitHeaders {

    static final String PRIORITY = "x-ratelimit-priority";
    static final String SHADOW_DECISION = "x-ratelimit-shadow-decision";

    private RateLimitHeaders() {
    }

    /** Headers of a request that goes on to the application (admitted, or let through by shadow mode). */
    static void forwarded(HttpServletResponse response, Admission admission) {
        CallerRefusal refusal = admission.callerRefusal();
        if (refusal != null) {
            // Only shadow mode lets a request that a caller limit refused go on.
            response.setHeader(PRIORITY, admission.plan().pool());
            response.setHeader(SHADOW_DECISION, "refused; limit=" + refusal.counter().scope().label() + '-'
                    + refusal.type().label().replace('_', '-') + "; retry-after=" + refusal.retryAfterSeconds());
            return;
        }
        Verdict verdict = admission.verdict();
        if (verdict == null) {
            return;
        }
        response.setHeader(PRIORITY, admission.plan().pool());
        limits(response, verdict);
        if (admission.isShadow()) {
            response.setHeader(SHADOW_DECISION, verdict.admitted() ? "admitted"
                    : "refused; limit=" + verdict.refusedBy().name().toLowerCase(Locale.ROOT).replace('_', '-')
                    + "; retry-after=" + verdict.retryAfterSeconds());
        }
    }

    static void refuse(HttpServletResponse response, Admission admission) throws IOException {
        CallerRefusal refusal = admission.callerRefusal();
        if (refusal != null) {
            response.setHeader("retry-after", Long.toString(refusal.retryAfterSeconds()));
            response.setHeader(PRIORITY, admission.plan().pool());
            JsonErrors.write(response, 429, JsonErrors.THROTTLING, "429", RefusalMessages.of(refusal));
            return;
        }
        Verdict verdict = admission.verdict();
        response.setHeader("retry-after", Long.toString(verdict.retryAfterSeconds()));
        response.setHeader(PRIORITY, admission.plan().pool());
        limits(response, verdict);
        if (verdict.refusedBy().isPool()) {
            response.setHeader("x-ratelimit-saturation", RefusalMessages.percent(verdict.saturation(), 2));
        }
        JsonErrors.write(response, 429, JsonErrors.THROTTLING, "429", RefusalMessages.of(admission.plan(), verdict));
    }

    private static void limits(HttpServletResponse response, Verdict verdict) {
        if (verdict.requestLimit() >= 0) {
            response.setHeader("x-ratelimit-limit-requests", Long.toString(verdict.requestLimit()));
            response.setHeader("x-ratelimit-remaining-requests", Long.toString(verdict.requestRemaining()));
        }
        if (verdict.tokenLimit() >= 0) {
            response.setHeader("x-ratelimit-limit-tokens", Long.toString(verdict.tokenLimit()));
            response.setHeader("x-ratelimit-remaining-tokens", Long.toString(verdict.tokenRemaining()));
        }
    }
}
