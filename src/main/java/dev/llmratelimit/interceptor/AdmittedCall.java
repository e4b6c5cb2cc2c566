package dev.llmratelimit.interceptor;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.CallEnding;
import dev.llmratelimit.engine.ThrottledLog;
import dev.llmratelimit.usage.Usage;

import java.io.OutputStream;

/**
 * A {@link RateLimited} call that was admitted: it finishes the admission exactly once, with the
 * usage of the returned value or of the body it writes, or without usage.
 */
public final class AdmittedCall {

    private static final ThrottledLog MISSING_USAGE = new ThrottledLog(AdmittedCall.class, System.Logger.Level.WARNING);
    private static final ThrottledLog SETTLE_FAILURES = new ThrottledLog(AdmittedCall.class, System.Logger.Level.WARNING);

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
            CallEnding.reported(usage).settle(admission);
        }
    }

    /**
     * The method returned: the usage its value carries is recorded; a value without usage is a
     * success of unknown size, charged its prompt and never less than what was reserved.
     */
    public void finish(Object returned) {
        Usage usage = ReturnedUsage.of(returned);
        if (usage != null) {
            CallEnding.reported(usage).settle(admission);
            return;
        }
        if (returned != null && !nestedUsage) {
            MISSING_USAGE.log("A " + call.model() + " call returned a " + returned.getClass().getName()
                    + " that carried no usable usage; charged its prompt, at least what was reserved", null);
        }
        CallEnding.withoutUsage(call.promptTokens(), 0).settle(admission);
    }

    /** Finishes without usage: the method threw, or its answer was not a success. */
    public void abort() {
        CallEnding.NOT_SERVED.settle(admission);
    }

    /** Settling the call's answer failed (ours, after the method ran): its reservation is kept. */
    void settlingFailed(RuntimeException failure) {
        SETTLE_FAILURES.log("Could not settle the usage of a rate-limited call; its reservation is kept", failure);
        CallEnding.withoutUsage(0, 0).settle(admission);
    }

    /** Opens the stream that a streamed body is written through; its usage is recorded as it passes. */
    public UsageRecordingStream recordingStream(OutputStream client) {
        return new UsageRecordingStream(client, call.model(), usage -> CallEnding.reported(usage).settle(admission));
    }

    /**
     * The body written through {@code stream} is complete ({@code failure == null}) or broke off;
     * {@link CallEnding} says what it costs.
     */
    public void finish(UsageRecordingStream stream, Throwable failure) {
        CallEnding ending = CallEnding.ofBody(true, stream.observer(), stream.written(), call::promptTokens);
        if (ending.kind() == CallEnding.Kind.STARTED_WITHOUT_USAGE && failure == null) {
            MISSING_USAGE.log("A streamed " + call.model() + " response carried no usable usage; charged its prompt"
                    + " and written output, at least what was reserved", null);
        }
        ending.settle(admission);
    }
}
