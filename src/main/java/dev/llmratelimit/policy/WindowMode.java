package dev.llmratelimit.policy;

/** {@code window-mode}: the counting window. */
public enum WindowMode {
    FIXED,
    SLIDING
}
