package dev.llmratelimit.servlet;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.wait.AdmissionDecider;

/**
 * The decision for one request over its model and that model's fallbacks.
 *
 * @param admission    the admission of the model that serves the request, or the first model's refusal
 * @param model        the model the application is to be asked for
 * @param fallbackFrom the model the client asked for when a fallback serves it, else {@code null}
 */
record ModelChoice(Admission admission, String model, String fallbackFrom) {

    boolean permitsCall() {
        return admission.permitsCall();
    }

    /** Milliseconds until the refusal would clear if nothing else happened. */
    long clearsInMillis() {
        return AdmissionDecider.clearsIn(admission);
    }

    /** What refused the request: later waiters refused by the same thing are not asked again in one pass. */
    Object refusingGroup() {
        return AdmissionDecider.groupOf(admission);
    }
}
