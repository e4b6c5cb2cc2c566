package dev.llmratelimit.interceptor;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.ThrottledLog;
import dev.llmratelimit.usage.ResponseBodyObserver;
import dev.llmratelimit.usage.Usage;

import java.io.OutputStream;

/**
 * A {@link RateLimited} call that was admitted: it finishes the admission exactly once, with the
 * usage of the returned value or of the body it writes, or without usage.
 */
public final class AdmittedCall {

    private static final ThrottledLog MISSING_USAGE = new ThrottledLog(AdmittedCall.class, System.Logger.Level.WARNING);

    private final Admission admission;
    private final ChatCall call;
    private boolean nestedUsage;

    AdmittedCall(Admission admission, ChatCall call) {
        this.admission = admission;
        this.call = call;
    }

    public Admission admission() {
        return admission;
    }

    /**
     * A {@link RateLimited} call nested in this one (on the same thread) returned: it was not counted
     * again, and the usage it returned, if any, is this call's.
     */
    void nestedReturned(Object returned) {
        Usage usage = ReturnedUsage.of(returned);
        if (usage != null) {
            nestedUsage = true;
            admission.complete(usage);
        }
    }

    /** Records the usage a complete return value carries, or finishes without usage. */
    public void finish(Object returned) {
        Usage usage = ReturnedUsage.of(returned);
        if (usage != null) {
            admission.complete(usage);
            return;
        }
        if (returned != null && !nestedUsage) {
            MISSING_USAGE.log("A " + call.model() + " call returned a " + returned.getClass().getName()
                    + " that carried no usable usage; no tokens recorded", null);
        }
        admission.abort();
    }

    /** Finishes without usage: the method threw, or its answer was not a success. */
    public void abort() {
        admission.abort();
    }

    /** Opens the stream that a streamed body is written through; its usage is recorded as it passes. */
    public UsageRecordingStream recordingStream(OutputStream client) {
        return new UsageRecordingStream(client, call.model(), admission::complete);
    }

    /**
     * The body written through {@code stream} is complete ({@code failure == null}) or broke off. A
     * stream that ended without usage still costs its prompt (of the request body or object, when known) and the
     * completion text it streamed (SPEC section 3).
     */
    public void finish(UsageRecordingStream stream, Throwable failure) {
        ResponseBodyObserver observer = stream.observer();
        if (observer == null) {
            admission.abort();
        } else if (observer.usage() != null) {
            admission.complete(observer.usage());
        } else if (observer.isStream()) {
            admission.complete(new Usage(call.promptTokens(), observer.streamedCompletionTokens(), 0));
        } else {
            if (failure == null) {
                MISSING_USAGE.log("A streamed " + call.model() + " response carried no usable usage; no tokens recorded", null);
            }
            admission.abort();
        }
    }
}
