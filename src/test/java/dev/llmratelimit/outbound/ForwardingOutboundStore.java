package dev.llmratelimit.outbound;

import java.util.concurrent.CompletableFuture;

/** A store that hands every operation to another: tests and benchmarks override the one they watch or change. */
public class ForwardingOutboundStore implements OutboundStore {

    private final OutboundStore store;

    public ForwardingOutboundStore(OutboundStore store) {
        this.store = store;
    }

    @Override
    public CompletableFuture<Grant> acquire(BucketKey key, BucketLimits limits, String permitId, Tokens tokens,
                                            long maxWaitMillis, long leaseMillis) {
        return store.acquire(key, limits, permitId, tokens, maxWaitMillis, leaseMillis);
    }

    @Override
    public CompletableFuture<Boolean> settle(BucketKey key, BucketLimits limits, String permitId, Tokens actualTokens,
                                             boolean refundRequest) {
        return store.settle(key, limits, permitId, actualTokens, refundRequest);
    }

    @Override
    public CompletableFuture<Void> correct(BucketKey key, BucketLimits limits, Correction correction) {
        return store.correct(key, limits, correction);
    }
}
