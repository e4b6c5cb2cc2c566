package dev.llmratelimit.outbound;

import dev.llmratelimit.usage.Usage;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One call's share of its provider's buckets: one request and an estimate of tokens. Finished exactly
 * once: {@link #settle} with the real usage (the difference is given back or charged) or
 * {@link #cancel} when the call never reached the provider; later calls do nothing. A permit never
 * finished counts as its estimate once its lease is over.
 */
public final class Permit {

    private final OutboundLimiter limiter;
    private final BucketKey key;
    private final BucketLimits limits;
    private final String id;
    private final long estimatedTokens;
    private final long waitedMillis;
    private final AtomicBoolean finished = new AtomicBoolean();

    Permit(OutboundLimiter limiter, BucketKey key, BucketLimits limits, String id, long estimatedTokens,
           long waitedMillis) {
        this.limiter = limiter;
        this.key = key;
        this.limits = limits;
        this.id = id;
        this.estimatedTokens = estimatedTokens;
        this.waitedMillis = waitedMillis;
    }

    public BucketKey key() {
        return key;
    }

    public long estimatedTokens() {
        return estimatedTokens;
    }

    /** How long the call had to wait for its place in the queue. */
    public long waitedMillis() {
        return waitedMillis;
    }

    /** The call ran and used this much; its completion tokens teach the model's output average. */
    public CompletableFuture<Boolean> settle(Usage usage) {
        limiter.learnOutput(key, usage.completionTokens());
        return settle(Math.max(0, usage.promptTokens()) + Math.max(0, usage.completionTokens()));
    }

    /** The call ran and used this many tokens in all (the request stays counted). */
    public CompletableFuture<Boolean> settle(long actualTokens) {
        if (!finished.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(false);
        }
        return limiter.finish(this, limits, Math.max(0, actualTokens), false);
    }

    /** The call never reached the provider: the request and the whole estimate go back. */
    public CompletableFuture<Boolean> cancel() {
        if (!finished.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(false);
        }
        return limiter.finish(this, limits, 0, true);
    }

    String id() {
        return id;
    }
}
