package dev.llmratelimit.servlet;

import dev.llmratelimit.chat.ChatRequest;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.CallEnding;
import dev.llmratelimit.engine.ThrottledLog;
import dev.llmratelimit.usage.RequestPromptTokens;
import dev.llmratelimit.usage.TokenCounter;
import dev.llmratelimit.usage.Usage;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One admitted request on its way through the application: it records the usage the response
 * carries, and finishes the admission exactly once when the application is done, synchronously
 * or through the {@link AsyncListener} of an asynchronous request.
 */
final class Exchange implements AsyncListener {

    private static final ThrottledLog MISSING_USAGE = new ThrottledLog(Exchange.class, System.Logger.Level.WARNING);
    private static final ThrottledLog FINISH_FAILURES = new ThrottledLog(Exchange.class, System.Logger.Level.WARNING);
    private static final ThrottledLog IMPLAUSIBLE_USAGE = new ThrottledLog(Exchange.class, System.Logger.Level.WARNING);

    private final Admission admission;
    private final ChatRequest request;
    private final byte[] requestBody;
    private final UsageCapturingResponse response;
    private final Runnable afterFinish;
    private final AtomicBoolean finished = new AtomicBoolean();

    /** @param afterFinish runs once the admission is finished (capacity may have been given back) */
    Exchange(Admission admission, ChatRequest request, byte[] requestBody, HttpServletResponse response,
             boolean stripUsageEvent, Runnable afterFinish) {
        this.admission = admission;
        this.afterFinish = afterFinish;
        this.request = request;
        this.requestBody = requestBody;
        this.response = new UsageCapturingResponse(response, request.model(), request.shape(), stripUsageEvent,
                usage -> CallEnding.reported(usage).settle(admission));
    }

    UsageCapturingResponse response() {
        return response;
    }

    /** The application is done with the response (normally, or by throwing {@code failure}). */
    void finish(Throwable failure) {
        if (!finished.compareAndSet(false, true)) {
            return;
        }
        try {
            response.finishBody();
        } catch (IOException | RuntimeException e) {
            response.clientFailed();
        }
        try {
            settle(failure);
        } catch (RuntimeException e) {
            FINISH_FAILURES.log("Could not settle the usage of a rate-limited request; its reservation is kept", e);
            CallEnding.withoutUsage(0, 0).settle(admission);
        }
        afterFinish.run();
    }

    private void settle(Throwable failure) {
        int status = response.getStatus();
        CallEnding ending = CallEnding.ofBody(status >= 200 && status < 300, response.observerIfWritten(),
                response.bytesWritten(), this::promptTokens);
        if (ending.kind() == CallEnding.Kind.REPORTED_USAGE && ending.usage().isImplausible()) {
            IMPLAUSIBLE_USAGE.log("A chat-completion response reported implausible usage (a figure of "
                    + Usage.MAX_TOKENS + " tokens or more); counted as " + Usage.MAX_TOKENS, null);
        } else if (ending.kind() == CallEnding.Kind.STARTED_WITHOUT_USAGE && failure == null && !response.hasClientFailed()) {
            MISSING_USAGE.log("A 2xx " + request.shape().configName() + " response carried no usable usage; "
                    + "charged its prompt and written output, at least what was reserved", null);
        }
        ending.settle(admission);
    }

    /**
     * The request's prompt estimate, for an answer without usage that reported no prompt figure of
     * its own, bounded like the reservation's ({@link TokenCounter#promptTokens}).
     */
    private long promptTokens() {
        return RequestPromptTokens.count(TokenCounter.forModel(request.model()), request.shape(), requestBody,
                requestBody.length);
    }

    @Override
    public void onComplete(AsyncEvent event) {
        finish(null);
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        finish(event.getThrowable());
    }

    @Override
    public void onError(AsyncEvent event) {
        finish(event.getThrowable());
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
        event.getAsyncContext().addListener(this);
    }
}
