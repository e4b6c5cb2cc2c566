package dev.llmratelimit.servlet;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.http.RateLimitHeaderValues;
import jakarta.servlet.http.HttpServletResponse;

/** Sets the {@code x-ratelimit-*} headers of SPEC section 6 on a servlet response. */
final class RateLimitHeaders {

    private RateLimitHeaders() {
    }

    /** Headers of a request that goes on to the application (admitted, or let through by shadow mode). */
    static void forwarded(HttpServletResponse response, Admission admission) {
        RateLimitHeaderValues.forwarded(admission, response::setHeader);
    }
}
