package dev.llmratelimit.engine;

import dev.llmratelimit.policy.RateLimitType;

import java.time.Clock;

/**
 * What every {@link Admission} of one limiter shares: where it settles, how it counts usage, and
 * whom it tells. One per limiter, so an admission carries one reference for all of it.
 *
 * @param shadow whether the policy only watches ({@code mode=shadow}): every request may call
 */
record AdmissionContext(AdmissionStore store, RateLimitType rateLimitType, boolean shadow, Clock clock,
                        DecisionObserver observer) {
}
