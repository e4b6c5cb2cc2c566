package dev.llmratelimit.testsupport;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.CallerPlan;
import dev.llmratelimit.engine.PromptTokens;
import dev.llmratelimit.engine.RateLimiter;

/** Short forms of {@link RateLimiter#admit(AdmissionRequest)} for tests. */
public final class Admits {

    private Admits() {
    }

    public static Admission admit(RateLimiter limiter, String model, String priority) {
        return limiter.admit(AdmissionRequest.of(model, priority, null));
    }

    public static Admission admit(RateLimiter limiter, String model, String preferred, String fallback) {
        return limiter.admit(AdmissionRequest.of(model, preferred, fallback));
    }

    public static Admission admit(RateLimiter limiter, String model, String preferred, String fallback,
                                  long promptTokens, long maxOutputTokens) {
        return limiter.admit(AdmissionRequest.of(model, preferred, fallback)
                .withTokens(PromptTokens.known(promptTokens), maxOutputTokens));
    }

    public static Admission admit(RateLimiter limiter, String model, String preferred, String fallback, CallerPlan callers) {
        return limiter.admit(AdmissionRequest.of(model, preferred, fallback).withCallers(callers));
    }

    public static Admission admit(RateLimiter limiter, String model, String preferred, String fallback,
                                  long promptTokens, long maxOutputTokens, CallerPlan callers) {
        return limiter.admit(AdmissionRequest.of(model, preferred, fallback).withCallers(callers)
                .withTokens(PromptTokens.known(promptTokens), maxOutputTokens));
    }
}
