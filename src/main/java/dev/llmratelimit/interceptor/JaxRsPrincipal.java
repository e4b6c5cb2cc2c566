package dev.llmratelimit.interceptor;

import jakarta.ws.rs.core.SecurityContext;

import java.security.Principal;

/** Reads JAX-RS's {@link SecurityContext}; loaded only where the JAX-RS API is present. */
final class JaxRsPrincipal {

    private JaxRsPrincipal() {
    }

    static Principal of(Object securityContext) {
        try {
            return securityContext instanceof SecurityContext context ? context.getUserPrincipal() : null;
        } catch (RuntimeException e) {
            return null;
        }
    }
}
