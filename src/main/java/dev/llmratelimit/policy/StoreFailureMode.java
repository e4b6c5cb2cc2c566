package dev.llmratelimit.policy;

/** {@code on-store-failure}: what a request gets when the counter store cannot answer. */
public enum StoreFailureMode {
    /** Admit the request, log (rate-limited) and count the failure. */
    FAIL_OPEN,
    /** Refuse the request with 503. */
    FAIL_CLOSED
}
