package dev.llmratelimit.engine;

import dev.llmratelimit.usage.ResponseBodyObserver;
import dev.llmratelimit.usage.Usage;

import java.util.function.LongSupplier;

/**
 * How an admitted call ended, as the entry point that ran it saw it, and the one settlement each
 * ending gets ({@link #settle}). The filter, the interceptor and the wait room finish every
 * admission through here, so an ending is settled alike wherever it happened:
 *
 * <ul>
 *   <li>{@link Kind#REPORTED_USAGE}: the answer carried usage; it is recorded and teaches the
 *       model's expected output.</li>
 *   <li>{@link Kind#CUT_STREAM}: a 2xx event stream ended without usage (cut by either side, or
 *       the application's own stream without it): its prompt and the output it streamed are
 *       charged; it teaches nothing, since a cut answer says nothing of how long answers are.</li>
 *   <li>{@link Kind#STARTED_WITHOUT_USAGE}: any other 2xx answer that started without usage (JSON
 *       the client hung up on or that broke off, a timeout, a value without usage, a settlement
 *       that failed): at least its prompt and the output already written, and never less than the
 *       decision reserved (tokens in {@code reserve} mode, a budget's worst case).</li>
 *   <li>{@link Kind#NOT_SERVED}: nothing was delivered (a non-2xx answer, an exception before the
 *       first byte, a failure before the call, an admitted waiter nobody ran): the request stays
 *       counted, every reservation is refunded.</li>
 * </ul>
 */
public record CallEnding(Kind kind, Usage usage) {

    public enum Kind { REPORTED_USAGE, CUT_STREAM, STARTED_WITHOUT_USAGE, NOT_SERVED }

    /** Nothing was delivered. */
    public static final CallEnding NOT_SERVED = new CallEnding(Kind.NOT_SERVED, null);

    /** Bytes of a JSON answer per output token when the answer's own count is missing (English prose runs about 4). */
    static final int JSON_BYTES_PER_TOKEN = 4;

    public static CallEnding reported(Usage usage) {
        return new CallEnding(Kind.REPORTED_USAGE, usage);
    }

    public static CallEnding cutStream(long promptTokens, long streamedTokens) {
        return new CallEnding(Kind.CUT_STREAM, new Usage(promptTokens, streamedTokens, 0));
    }

    public static CallEnding withoutUsage(long promptTokens, long writtenTokens) {
        return new CallEnding(Kind.STARTED_WITHOUT_USAGE, new Usage(promptTokens, writtenTokens, 0));
    }

    /**
     * The ending of a call whose answer was a body the limiter watched.
     *
     * @param success      whether the answer's status was 2xx
     * @param observer     what watched the body; {@code null} when nothing was written
     * @param bytesWritten the bytes of the body the application wrote
     * @param promptTokens the request's prompt estimate, asked for only when the usage is missing and
     *                     the body reported no prompt figure of its own (a stream's {@code message_start},
     *                     {@code response.created}), which beats any estimate
     */
    public static CallEnding ofBody(boolean success, ResponseBodyObserver observer, long bytesWritten,
                                    LongSupplier promptTokens) {
        if (!success || observer == null) {
            return NOT_SERVED;
        }
        Usage usage = observer.usage();
        if (usage != null) {
            return reported(usage);
        }
        long prompt = observer.reportedPromptTokens().orElseGet(promptTokens);
        if (observer.isStream()) {
            return cutStream(prompt, observer.streamedCompletionTokens());
        }
        return withoutUsage(prompt, (bytesWritten + JSON_BYTES_PER_TOKEN - 1) / JSON_BYTES_PER_TOKEN);
    }

    /** Finishes the admission as this ending says; no effect on an admission already finished. */
    public void settle(Admission admission) {
        switch (kind) {
            case REPORTED_USAGE -> admission.complete(usage);
            case CUT_STREAM -> admission.charge(usage);
            case STARTED_WITHOUT_USAGE -> admission.chargeAtLeastReserved(usage);
            case NOT_SERVED -> admission.abort();
        }
    }
}
