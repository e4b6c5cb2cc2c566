package dev.llmratelimit.policy;

/**
 * {@code on-internal-error}: what a request gets when the limiter itself fails on it (a bug of
 * ours, or of a component plugged into it such as a caller resolver), as opposed to a store that
 * cannot answer ({@link StoreFailureMode}).
 */
public enum InternalErrorMode {
    /** Answer 503 with a JSON error and {@code retry-after}: the request is neither served nor counted. */
    FAIL_CLOSED,
    /** Let the request through without any limit: served, counted nowhere. */
    FAIL_OPEN
}
