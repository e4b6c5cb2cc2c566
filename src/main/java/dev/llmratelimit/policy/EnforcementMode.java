package dev.llmratelimit.policy;

/** {@code mode}: refuse over-limit requests, or only report what would have been refused. */
public enum EnforcementMode {
    ENFORCE,
    SHADOW
}
