package dev.llmratelimit.identity;

import java.security.Principal;

/**
 * Turns the authenticated principal of a request into a {@link Caller}. Nothing the client sends
 * (headers, body) is input: only the principal the container authenticated.
 *
 * <p>Replaceable by the application: a CDI bean of this type, or a class named in
 * {@code llm.ratelimit.caller-resolver} with a public no-argument constructor. Implementations are
 * called once per request from many threads at once and must be thread-safe.
 */
public interface CallerResolver {

    /**
     * @param principal {@code HttpServletRequest#getUserPrincipal()}, {@code null} when unauthenticated
     * @return the caller; {@link Caller#ANONYMOUS} for a {@code null} principal, never {@code null}
     */
    Caller resolve(Principal principal);
}
