package dev.llmratelimit.outbound;

import dev.llmratelimit.usage.Usage;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One call's share of its provider's buckets: one request and an estimate of input and output tokens. Finished exactly
 * once: {@link #settle} with the real usage (the difference is given back or charged) or
 * {@link #cancel} when the call never reached the provider; later calls do nothing. A permit never
 * finished counts as its estimate once its lease is over.
 */
public final class Permit {

    private final OutboundLimiter limiter;
    private final BucketKey key;
    private final BucketLimits limits;
    private final String id;
    private final Tokens estimate;
    private final long waitedMillis;
    private final AtomicBoolean finished = new AtomicBoolean();

    Permit(OutboundLimiter limiter, BucketKey key, BucketLimits limits, String id, Tokens estimate,
           long waitedMillis) {
        this.limiter = limiter;
        this.key = key;
        this.limits = limits;
        this.id = id;
        this.estimate = estimate;
        this.waitedMillis = waitedMillis;
    }

    public BucketKey key() {
        return key;
    }

    public Tokens estimate() {
        return estimate;
    }

    /** How long the call had to wait for its place in the queue. */
    public long waitedMillis() {
        return waitedMillis;
    }

    /** The call ran and used this much; its completion tokens teach the model's output average. */
    public CompletableFuture<Boolean> settle(Usage usage) {
        limiter.learnOutput(key, usage.completionTokens());
        return settle(Tokens.of(usage));
    }

    /** The call ran and used these tokens (the request stays counted). */
    public CompletableFuture<Boolean> settle(Tokens actual) {
        if (!finished.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(false);
        }
        return limiter.finish(this, limits, actual, false);
    }

    /** The call never reached the provider: the request and the whole estimate go back. */
    public CompletableFuture<Boolean> cancel() {
        if (!finished.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(false);
        }
        return limiter.finish(this, limits, Tokens.NONE, true);
    }

    String id() {
        return id;
    }
}
