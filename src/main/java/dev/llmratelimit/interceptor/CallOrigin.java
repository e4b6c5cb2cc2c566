package dev.llmratelimit.interceptor;

import java.security.Principal;

/** Where a {@link RateLimited} call comes from, as the intercepting container knows it. */
public interface CallOrigin {

    /** The HTTP request the call serves, or {@code null} when it serves none. */
    ServedRequest request();

    /** The caller's principal when the served request carries none, or {@code null} for an unauthenticated call. */
    Principal principal();
}
