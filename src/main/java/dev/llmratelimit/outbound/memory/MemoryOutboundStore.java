package dev.llmratelimit.outbound.memory;

import dev.llmratelimit.outbound.BucketKey;
import dev.llmratelimit.outbound.BucketLimits;
import dev.llmratelimit.outbound.Correction;
import dev.llmratelimit.outbound.Grant;
import dev.llmratelimit.outbound.OutboundStore;
import dev.llmratelimit.outbound.Tokens;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The buckets of one JVM. Each operation on a (provider, model) runs inside the map's atomic
 * {@code compute} for that key; a bucket that is full again and
 * owed nothing is forgotten (checked every {@value #SWEEP_EVERY} acquisitions), so memory follows the
 * models in use, not every model ever named.
 */
public final class MemoryOutboundStore implements OutboundStore {

    private static final int SWEEP_EVERY = 1024;

    private final Clock clock;
    private final Map<BucketKey, ModelBuckets> buckets = new ConcurrentHashMap<>();
    private final Map<BucketKey, BucketLimits> lastLimits = new ConcurrentHashMap<>();
    private final AtomicInteger acquisitions = new AtomicInteger();

    public MemoryOutboundStore(Clock clock) {
        this.clock = clock;
    }

    public MemoryOutboundStore() {
        this(Clock.systemUTC());
    }

    @Override
    public CompletableFuture<Grant> acquire(BucketKey key, BucketLimits limits, String permitId, Tokens tokens,
                                            long maxWaitMillis, long leaseMillis) {
        if (acquisitions.incrementAndGet() % SWEEP_EVERY == 0) {
            sweep();
        }
        lastLimits.put(key, limits);
        Grant[] grant = new Grant[1];
        buckets.compute(key, (k, bucket) -> {
            ModelBuckets held = bucket != null ? bucket : new ModelBuckets(limits, clock.millis());
            grant[0] = held.acquire(limits, clock.millis(), permitId, tokens, maxWaitMillis, leaseMillis);
            return held;
        });
        return CompletableFuture.completedFuture(grant[0]);
    }

    @Override
    public CompletableFuture<Boolean> settle(BucketKey key, BucketLimits limits, String permitId, Tokens actualTokens,
                                             boolean refundRequest) {
        boolean[] settled = new boolean[1];
        buckets.computeIfPresent(key, (k, bucket) -> {
            settled[0] = bucket.settle(limits, clock.millis(), permitId, actualTokens, refundRequest);
            return bucket;
        });
        return CompletableFuture.completedFuture(settled[0]);
    }

    @Override
    public CompletableFuture<Void> correct(BucketKey key, BucketLimits limits, Correction correction) {
        lastLimits.put(key, limits);
        buckets.compute(key, (k, bucket) -> {
            ModelBuckets held = bucket != null ? bucket : new ModelBuckets(limits, clock.millis());
            held.correct(limits, clock.millis(), correction);
            return held;
        });
        return CompletableFuture.completedFuture(null);
    }

    /** How many (provider, model) pairs are held now. */
    public int size() {
        return buckets.size();
    }

    private void sweep() {
        long now = clock.millis();
        for (BucketKey key : buckets.keySet()) {
            buckets.computeIfPresent(key, (k, bucket) -> {
                BucketLimits limits = lastLimits.get(k);
                return limits != null && bucket.idle(limits, now) ? null : bucket;
            });
        }
        lastLimits.keySet().retainAll(buckets.keySet());
    }
}
