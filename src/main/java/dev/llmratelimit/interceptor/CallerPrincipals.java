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

    private CallerPrincipals() {
    }

    /** The principal, or {@code null} for an unauthenticated call. */
    static Principal current(Instance<Object> beans) {
        if (OptionalApis.JAX_RS_SECURITY_CONTEXT != null) {
            Principal principal = JaxRsPrincipal.of(bean(beans, OptionalApis.JAX_RS_SECURITY_CONTEXT));
            if (principal != null) {
                return principal;
            }
        }
        if (OptionalApis.JSON_WEB_TOKEN != null && bean(beans, OptionalApis.JSON_WEB_TOKEN) instanceof Principal jwt) {
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
}
