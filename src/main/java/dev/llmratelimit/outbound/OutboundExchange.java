package dev.llmratelimit.outbound;

import dev.llmratelimit.usage.JsonBodyObserver;
import dev.llmratelimit.usage.ResponseBodyObserver;
import dev.llmratelimit.usage.SseBodyObserver;
import dev.llmratelimit.usage.Usage;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * One governed call from its body to its settled permit, for the HTTP integrations: the estimate, the
 * wait, the provider's answer (headers correct the buckets at once; a 429 pauses them unless it is
 * {@code insufficient_quota}) and the response body, watched on its way to the caller for the usage it
 * settles to. Every path finishes the permit exactly once:
 * <ul>
 *   <li>a 2xx answer that ends: its usage (a JSON answer without usage keeps its estimate; a stream
 *       without usage counts its prompt and what it streamed);</li>
 *   <li>a body cut short (the caller cancelled, the connection broke): prompt and what was streamed;</li>
 *   <li>any other status: no tokens, the request stays counted;</li>
 *   <li>no answer: a connection never made gives everything back; any other failure keeps the estimate,
 *       since the provider may have counted the call.</li>
 * </ul>
 */
public final class OutboundExchange {

    private final OutboundLimiter limiter;
    private final String provider;
    private final OutboundRequest request;
    private final Tokens estimate;
    private volatile Permit permit;

    private OutboundExchange(OutboundLimiter limiter, String provider, OutboundRequest request) {
        this.limiter = limiter;
        this.provider = provider;
        this.request = request;
        this.estimate = limiter.estimate(provider, request.model(), request.promptTokens(), request.maxTokens());
    }

    /** Empty when no provider governs the URL, or the body names no model. */
    public static Optional<OutboundExchange> open(OutboundLimiter limiter, String url, byte[] body) {
        Optional<ProviderSettings> provider = limiter.providerFor(url);
        if (provider.isEmpty() || body == null) {
            return Optional.empty();
        }
        return OutboundRequest.read(OutboundRequest.shapeOf(url), body).map(request -> new OutboundExchange(limiter, provider.get().name(), request));
    }

    /** The body to send (with {@code include_usage} for a stream). */
    public byte[] body() {
        return request.body();
    }

    public Tokens estimate() {
        return estimate;
    }

    /** Waits for the call's place on this thread. */
    public void acquire() throws InterruptedException {
        permit = limiter.acquire(provider, request.model(), estimate);
    }

    /**
     * Waits for the call's place on this thread, for a client whose calls fail with I/O errors: an interrupt
     * ends the wait as an {@link InterruptedIOException}, the thread's interrupt flag set again.
     */
    public void acquireForIo() throws InterruptedIOException {
        try {
            acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted while waiting for room at the provider");
        }
    }

    /** Waits for the call's place without a thread; cancelling the future before then gives the place back. */
    public CompletableFuture<Void> acquireAsync() {
        CompletableFuture<Permit> acquiring = limiter.acquireAsync(provider, request.model(), estimate);
        CompletableFuture<Void> placed = acquiring.thenAccept(granted -> permit = granted);
        placed.whenComplete((done, failure) -> {
            if (placed.isCancelled()) {
                acquiring.cancel(false);
            }
        });
        return placed;
    }

    /** The call failed before any answer came. */
    public void failed(Throwable failure) {
        if (failure instanceof ConnectException) {
            permit.cancel();
        } else {
            permit.settle(estimate);
        }
    }

    /**
     * The provider answered: corrects the buckets from the headers at once and returns the watch for the
     * body.
     *
     * @param header the first value of a header by its lower-case name, or {@code null}
     */
    public ResponseWatch answered(int status, Function<String, String> header) {
        limiter.correct(provider, request.model(), ProviderHeaders.correction(header, limiter.clock().instant()));
        return new ResponseWatch(status, header);
    }

    /** The body of one answer on its way to the caller; finishes the permit once. */
    public final class ResponseWatch {

        private final int status;
        private final Function<String, String> header;
        private final ResponseBodyObserver observer;
        private final ErrorBody errorBody;
        private boolean finished;

        private ResponseWatch(int status, Function<String, String> header) {
            this.status = status;
            this.header = header;
            this.errorBody = status == 429 ? new ErrorBody() : null;
            this.observer = observer(status);
        }

        private ResponseBodyObserver observer(int status) {
            if (status < 200 || status > 299) {
                return errorBody != null ? errorBody : ResponseBodyObserver.PASS_THROUGH;
            }
            String type = header.apply("content-type");
            if (request.stream() || (type != null && type.toLowerCase(java.util.Locale.ROOT).startsWith("text/event-stream"))) {
                return new SseBodyObserver(request.shape(), request.model(), request.usageEventAdded(), usage -> { });
            }
            return new JsonBodyObserver(request.shape(), usage -> { });
        }

        /**
         * Bytes from the provider; what the caller may see goes to {@code downstream}. Synchronized
         * with {@link #cut}, which may come from another thread (a cancelled subscription, a stream
         * closed elsewhere): the observer is used by one thread at a time.
         */
        public synchronized void write(byte[] bytes, int offset, int length, OutputStream downstream) throws IOException {
            observer.write(bytes, offset, length, downstream);
        }

        /** The body ended. */
        public synchronized void end(OutputStream downstream) throws IOException {
            try {
                observer.finish(downstream);
            } finally {
                finish(false);
            }
        }

        /** The body will not end: cancelled, or the connection broke. */
        public synchronized void cut() {
            finish(true);
        }

        private void finish(boolean cut) {
            if (finished) {
                return;
            }
            finished = true;
            if (status == 429 && !errorBody.insufficientQuota()) {
                limiter.correct(provider, request.model(), Correction.EMPTY.withPause(
                        ProviderHeaders.retryAfterMillis(header, limiter.clock().instant())));
            }
            if (status < 200 || status > 299) {
                permit.settle(Tokens.NONE);
                return;
            }
            Usage usage = observer.usage();
            if (usage != null) {
                permit.settle(usage);
            } else if (observer.isStream() || cut) {
                permit.settle(new Tokens(request.promptTokens(), observer.streamedCompletionTokens()));
            } else {
                permit.settle(estimate);
            }
        }
    }
}
