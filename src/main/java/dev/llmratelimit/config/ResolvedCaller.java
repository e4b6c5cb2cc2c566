package dev.llmratelimit.config;

import dev.llmratelimit.identity.Caller;

import java.security.Principal;

/**
 * A request's caller as one configuration resolved it, with the principal it came from: a request
 * decided again after a reload (one that waits for capacity) is resolved again by the new
 * configuration ({@link RateLimitRuntime#admit(ResolvedCaller, java.util.function.Function)}), so it
 * never keeps the per-caller limits, team or priority a reload changed.
 *
 * @param principal the request's principal, {@code null} when unauthenticated
 * @param caller    what {@code by}'s resolver made of it
 * @param by        the configuration that resolved it
 */
public record ResolvedCaller(Principal principal, Caller caller, RuntimeConfiguration by) {
}
