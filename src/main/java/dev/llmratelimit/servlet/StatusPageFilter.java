package dev.llmratelimit.servlet;

import dev.llmratelimit.config.RateLimitRuntime;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;

/**
 * Serves only the status page and its JSON twin, for a port other than the application's (Spring Boot's
 * management port), where the {@link RateLimitFilter} of the application's port then leaves the page out.
 * Limits nothing; every other request passes on.
 */
public final class StatusPageFilter implements Filter {

    private final StatusEndpoint status;

    public StatusPageFilter(RateLimitRuntime runtime) {
        this.status = new StatusEndpoint(runtime.statusSettings(), runtime.status());
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        if (req instanceof HttpServletRequest request && res instanceof HttpServletResponse response && status.serves(request)) {
            status.serve(request, response);
        } else {
            chain.doFilter(req, res);
        }
    }
}
