package dev.llmratelimit.servlet;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.wait.AdmissionDecider;

import java.util.List;

/**
 * The decision for one request over its model and that model's fallbacks.
 *
 * @param admission    the admission of the model that serves the request, or the first model's refusal
 * @param model        the model the application is to be asked for
 * @param fallbackFrom the model the client asked for when a fallback serves it, else {@code null}
 * @param refusedBy    what refused each model of the chain, in order, when none admitted; else empty
 */
record ModelChoice(Admission admission, String model, String fallbackFrom, List<Object> refusedBy) {

    ModelChoice(Admission admission, String model, String fallbackFrom) {
        this(admission, model, fallbackFrom, List.of());
    }

    boolean permitsCall() {
        return admission.permitsCall();
    }

    /** Milliseconds until the refusal would clear if nothing else happened. */
    long clearsInMillis() {
        return AdmissionDecider.clearsIn(admission);
    }

    /**
     * What refused the request over its whole chain: later waiters refused by the same things are not
     * asked again in one pass (one refused by the first model alike may still fit a fallback).
     */
    Object refusingGroup() {
        return refusedBy.isEmpty() ? AdmissionDecider.groupOf(admission) : refusedBy;
    }
}
