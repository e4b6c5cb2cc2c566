package dev.llmratelimit.policy;

/**
 * {@code fairness}: how a saturated model's pools share it (docs/fairness.md). {@code SATURATION}
 * holds each pool to its configured share; {@code WORK_CONSERVING} to its share re-normalised over
 * the pools active in the window, so an idle pool's share is lent to the pools that ask.
 */
public enum Fairness {
    SATURATION,
    WORK_CONSERVING
}
