package dev.llmratelimit.servlet;

import dev.llmratelimit.observe.StatusHtml;
import dev.llmratelimit.observe.StatusJson;
import dev.llmratelimit.observe.StatusReader;
import dev.llmratelimit.observe.StatusSettings;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Serves the status page and its JSON twin on GET at the configured path. Container
 * security decides who sees it: a caller must be in the configured role; an anonymous caller is
 * first asked to log in ({@code request.authenticate}, the application's login mechanism).
 */
final class StatusEndpoint {

    /** The page fetches only itself; nothing else may load, run or be framed. */
    private static final String CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; "
            + "script-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'";

    private final StatusSettings settings;
    private final StatusReader reader;

    StatusEndpoint(StatusSettings settings, StatusReader reader) {
        this.settings = settings;
        this.reader = reader;
    }

    /** Whether this request asks for the page or its JSON. */
    boolean serves(HttpServletRequest request) {
        if (!settings.enabled()) {
            return false;
        }
        if (!"GET".equals(request.getMethod())) {
            return false;
        }
        String path = path(request);
        return path.equals(settings.path()) || path.equals(settings.jsonPath());
    }

    void serve(HttpServletRequest request, HttpServletResponse response) throws IOException, ServletException {
        if (!permitted(request, response)) {
            return;
        }
        response.setHeader("Cache-Control", "no-store");
        response.setHeader("X-Content-Type-Options", "nosniff");
        if (path(request).equals(settings.jsonPath())) {
            response.setContentType("application/json");
            StatusJson.write(reader.read(), response.getOutputStream());
            return;
        }
        response.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        response.setContentType("text/html;charset=UTF-8");
        byte[] html = StatusHtml.render(reader.read(), settings.refresh()).getBytes(StandardCharsets.UTF_8);
        response.setContentLength(html.length);
        response.getOutputStream().write(html);
    }

    /** Whether the caller may see the page; if not, the answer (challenge, 401 or 403) is written. */
    private boolean permitted(HttpServletRequest request, HttpServletResponse response)
            throws IOException, ServletException {
        String role = settings.role();
        if (role == null) {
            return true;
        }
        if (request.getUserPrincipal() == null) {
            if (!request.authenticate(response)) {
                if (!response.isCommitted()) {
                    JsonErrors.write(response, 401, "authentication_error", "unauthenticated",
                            "The status page needs an authenticated caller in role " + role);
                }
                return false;
            }
        }
        if (request.isUserInRole(role)) {
            return true;
        }
        JsonErrors.write(response, 403, "permission_error", "forbidden",
                "The status page needs the role " + role);
        return false;
    }

    private static String path(HttpServletRequest request) {
        String pathInfo = request.getPathInfo();
        return pathInfo == null ? request.getServletPath() : request.getServletPath() + pathInfo;
    }
}
