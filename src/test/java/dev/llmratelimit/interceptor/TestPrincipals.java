package dev.llmratelimit.interceptor;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;

import java.security.Principal;

/** Who the caller of a call without an HTTP request is, as an EE container's security layer would say. */
@ApplicationScoped
public class TestPrincipals {

    static final ThreadLocal<Principal> CURRENT = new ThreadLocal<>();

    @Produces
    @Dependent
    Principal current() {
        return CURRENT.get();
    }
}
