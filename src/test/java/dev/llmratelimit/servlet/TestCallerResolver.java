package dev.llmratelimit.servlet;

import dev.llmratelimit.identity.Caller;
import dev.llmratelimit.identity.CallerResolver;
import jakarta.enterprise.context.ApplicationScoped;

import java.security.Principal;

/**
 * An application's own resolver as a CDI bean: principal "zed" is prod, principal "broken" makes it
 * throw (a bug in the application's resolver), everyone else is nobody.
 */
@ApplicationScoped
public class TestCallerResolver implements CallerResolver {

    @Override
    public Caller resolve(Principal principal) {
        if (principal != null && principal.getName().equals("broken")) {
            throw new IllegalStateException("resolver bug");
        }
        if (principal != null && principal.getName().equals("zed")) {
            return new Caller("zed", null, null, "prod");
        }
        return Caller.ANONYMOUS;
    }
}
