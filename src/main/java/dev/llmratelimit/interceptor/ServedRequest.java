package dev.llmratelimit.interceptor;

import java.security.Principal;

/**
 * What a {@link RateLimited} call needs to know of the HTTP request it serves.
 *
 * @param limitedByFilter whether {@code RateLimitFilter} already limited it
 * @param principal       its authenticated principal, or {@code null}
 */
public record ServedRequest(boolean limitedByFilter, Principal principal) {
}
