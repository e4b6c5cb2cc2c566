package dev.llmratelimit.policy;

/** {@code on-store-failure}: what a request gets when the counter store cannot answer. */
public enum StoreFailureMode {
    /** Admit the request, log (rate-limited) and count the failure; the request is counted once the store answers. */
    FAIL_OPEN,
    /** Refuse the request with 503. */
    FAIL_CLOSED,
    /**
     * Decide on this instance alone, on its share of every limit (the limit divided by the live
     * instances it last saw), until the shared store answers again. Chosen at start-up.
     */
    LOCAL
}
