package dev.llmratelimit.servlet;

import dev.llmratelimit.usage.EndpointShape;
import jakarta.servlet.http.HttpServletRequest;

import java.util.Map;

/** Matches a request against the protected paths, relative to the application's context path. */
final class ChatPaths {

    private ChatPaths() {
    }

    /**
     * The shape of the protected path the request is for, or {@code null}. Uses the container's decoded
     * and normalised servlet path plus path info, so {@code //v1/...}, {@code %2F}-tricks or
     * {@code ;params} do not slip past; trailing slashes are ignored.
     */
    static EndpointShape shapeOf(Map<String, EndpointShape> paths, HttpServletRequest request) {
        String servletPath = request.getServletPath();
        String pathInfo = request.getPathInfo();
        String path = pathInfo == null ? servletPath : servletPath + pathInfo;
        int end = path.length();
        while (end > 1 && path.charAt(end - 1) == '/') {
            end--;
        }
        return paths.get(end == path.length() ? path : path.substring(0, end));
    }
}
