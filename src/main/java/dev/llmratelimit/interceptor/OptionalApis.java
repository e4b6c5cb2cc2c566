package dev.llmratelimit.interceptor;

/**
 * Which optional APIs (servlet, JAX-RS, MicroProfile JWT) the application has, seen from this
 * library's class loader: the one that would link the helpers that name them.
 */
final class OptionalApis {

    static final Class<?> HTTP_SERVLET_REQUEST = find("jakarta.servlet.http.HttpServletRequest");
    static final Class<?> JAX_RS_RESPONSE = find("jakarta.ws.rs.core.Response");
    static final Class<?> JAX_RS_SECURITY_CONTEXT = find("jakarta.ws.rs.core.SecurityContext");
    static final Class<?> JSON_WEB_TOKEN = find("org.eclipse.microprofile.jwt.JsonWebToken");

    private OptionalApis() {
    }

    private static Class<?> find(String name) {
        try {
            return Class.forName(name, false, OptionalApis.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }
}
