package dev.llmratelimit.policy;

/** {@code token-admission}: how tokens are checked before the call (docs/token-admission.md). */
public enum TokenAdmission {
    /** Check against usage already recorded; tokens are added after the call. */
    RECORDED,
    /** Check and add an estimate before the call, corrected after it. */
    RESERVE
}
