package dev.llmratelimit.interceptor;

import jakarta.enterprise.inject.Instance;

import java.security.Principal;

/**
 * The authenticated caller of a {@link RateLimited} call that serves no servlet request (or whose
 * request carries no principal), from whichever CDI-injectable source the container has, in this
 * order: JAX-RS {@code SecurityContext}, MicroProfile {@code JsonWebToken}, the built-in
 * {@code Principal} bean. Each API is touched only where it is present.
 */
final class CallerPrincipals {

    private static final String SECURITY_CONTEXT = "jakarta.ws.rs.core.SecurityContext";
    private static final String JSON_WEB_TOKEN = "org.eclipse.microprofile.jwt.JsonWebToken";

    private static final Class<?> SECURITY_CONTEXT_TYPE = optionalClass(SECURITY_CONTEXT);
    private static final Class<?> JSON_WEB_TOKEN_TYPE = optionalClass(JSON_WEB_TOKEN);

    private CallerPrincipals() {
    }

    /** The principal, or {@code null} for an unauthenticated call. */
    static Principal current(Instance<Object> beans) {
        if (SECURITY_CONTEXT_TYPE != null) {
            Principal principal = JaxRsPrincipal.of(bean(beans, SECURITY_CONTEXT_TYPE));
            if (principal != null) {
                return principal;
            }
        }
        if (JSON_WEB_TOKEN_TYPE != null && bean(beans, JSON_WEB_TOKEN_TYPE) instanceof Principal jwt) {
            return jwt;
        }
        return bean(beans, Principal.class) instanceof Principal principal ? principal : null;
    }

    /** The bean of that type, or {@code null} when there is none, its scope is not active, or it is a nameless principal. */
    private static Object bean(Instance<Object> beans, Class<?> type) {
        Instance<?> instance = beans.select(type);
        if (!instance.isResolvable()) {
            return null;
        }
        try {
            Object bean = instance.get();
            return bean instanceof Principal principal && !named(principal) ? null : bean;
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** A built-in principal of an unauthenticated call may exist with no name (or fail on asking). */
    private static boolean named(Principal principal) {
        try {
            return principal.getName() != null;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static Class<?> optionalClass(String name) {
        try {
            return Class.forName(name, false, CallerPrincipals.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }
}
