package dev.llmratelimit.outbound;

import java.util.concurrent.CompletableFuture;

/**
 * Where the buckets live: in this JVM ({@link dev.llmratelimit.outbound.memory.MemoryOutboundStore}) or
 * in Redis, shared by every instance ({@link dev.llmratelimit.outbound.redis.RedisOutboundStore}). Each
 * operation is one atomic step (in Redis one script on the server's clock). The futures fail with
 * {@link dev.llmratelimit.engine.StoreUnavailableException} when the store cannot answer.
 */
public interface OutboundStore extends AutoCloseable {

    /**
     * Refills the buckets to now and, when the estimate fits and the wait for it is at most
     * {@code maxWaitMillis}, takes one request and {@code tokens} from every limited bucket (requests,
     * tokens, input tokens, output tokens; the buckets may go below zero: what later callers wait for) and remembers the permit under {@code permitId} for
     * {@code leaseMillis} after the wait. Otherwise takes nothing.
     */
    CompletableFuture<Grant> acquire(BucketKey key, BucketLimits limits, String permitId, Tokens tokens,
                                     long maxWaitMillis, long leaseMillis);

    /**
     * Settles the permit: gives back, in each token bucket, the estimate less {@code actualTokens} (a
     * negative difference is an extra charge) and, when {@code refundRequest}, the request too. A permit settled already, or never
     * taken, or whose lease ran out, is left alone: completes with {@code false}.
     */
    CompletableFuture<Boolean> settle(BucketKey key, BucketLimits limits, String permitId, Tokens actualTokens,
                                      boolean refundRequest);

    /** Lowers the buckets to what the provider said, never raising them; a pause only ever lengthens. */
    CompletableFuture<Void> correct(BucketKey key, BucketLimits limits, Correction correction);

    @Override
    default void close() {
    }
}
