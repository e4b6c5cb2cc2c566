package dev.llmratelimit.policy;

/** Which tokens of a response's usage count against TPM ({@code rate-limit-type}). */
public enum RateLimitType {
    /** Prompt plus completion tokens, cached prompt tokens excluded. */
    TOTAL,
    /** Prompt tokens, cached prompt tokens excluded. */
    INPUT,
    /** Completion tokens. */
    OUTPUT
}
