package dev.llmratelimit.demo;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Map;

/**
 * Stands for the application's own authentication: {@code Authorization: Bearer <key>} becomes the
 * principal named by {@code demo.keys.<key>}. No header: anonymous. An unknown key: 401. A
 * configuration without {@code demo.keys.*} authenticates no one: every caller is anonymous, whatever
 * key its SDK sends.
 */
public final class BearerKeyAuthFilter implements Filter {

    private final Map<String, String> keys;

    public BearerKeyAuthFilter(Map<String, String> keys) {
        this.keys = Map.copyOf(keys);
    }

    /** {@code Authorization: Bearer <key>}, else Anthropic's {@code x-api-key: <key>}, else null. */
    private static String key(HttpServletRequest request) {
        String authorization = request.getHeader("Authorization");
        if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return authorization.substring(7).trim();
        }
        String apiKey = request.getHeader("x-api-key");
        return apiKey == null ? null : apiKey.trim();
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest request = (HttpServletRequest) req;
        String key = key(request);
        if (keys.isEmpty() || key == null) {
            chain.doFilter(req, res);
            return;
        }
        String name = keys.get(key);
        if (name == null) {
            HttpServletResponse response = (HttpServletResponse) res;
            response.setStatus(401);
            response.setContentType("application/json");
            response.getOutputStream().write(("{\"error\":{\"message\":\"Incorrect API key provided\","
                    + "\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"invalid_api_key\"}}")
                    .getBytes(StandardCharsets.UTF_8));
            return;
        }
        Principal principal = () -> name;
        chain.doFilter(new HttpServletRequestWrapper(request) {
            @Override
            public Principal getUserPrincipal() {
                return principal;
            }

            @Override
            public String getRemoteUser() {
                return name;
            }
        }, res);
    }
}
