package dev.llmratelimit.interceptor;

import dev.llmratelimit.servlet.RateLimitFilter;
import jakarta.enterprise.inject.Instance;
import jakarta.servlet.http.HttpServletRequest;

import java.security.Principal;

/**
 * The HTTP request the current thread serves, through the container's built-in
 * {@code HttpServletRequest} bean. The only class of the interceptor that names the servlet API:
 * loaded only where it is present.
 */
final class ServletRequests {

    private ServletRequests() {
    }

    /** The HTTP request the call serves, or {@code null} when it serves none. */
    static ServedRequest current(Instance<Object> beans) {
        Instance<HttpServletRequest> request = beans.select(HttpServletRequest.class);
        if (!request.isResolvable()) {
            return null;
        }
        try {
            HttpServletRequest current = request.get();   // a proxy: asking it fails when no request is active
            return new ServedRequest(current.getAttribute(RateLimitFilter.LIMITED) != null, current.getUserPrincipal());
        } catch (RuntimeException e) {
            return null;
        }
    }
}
