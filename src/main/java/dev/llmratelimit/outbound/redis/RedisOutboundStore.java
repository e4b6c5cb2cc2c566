package dev.llmratelimit.outbound.redis;

import dev.llmratelimit.outbound.BucketKey;
import dev.llmratelimit.outbound.BucketLimits;
import dev.llmratelimit.outbound.Correction;
import dev.llmratelimit.outbound.Dimension;
import dev.llmratelimit.outbound.Grant;
import dev.llmratelimit.outbound.OutboundStore;
import dev.llmratelimit.outbound.Tokens;
import dev.llmratelimit.store.redis.RedisStoreSettings;
import dev.llmratelimit.store.redis.RedissonClientFactory;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The buckets in Redis, shared exactly by every instance: one script per acquisition, per settlement and
 * per correction, each on the server's clock; one hash per pair holds a bucket per {@link Dimension} ({@code TIME}), so instances with skewed clocks agree. Keys
 * are {@code <prefix>out:{<provider>:<model>}} and the permits' markers beside them
 * ({@code ...}:p:<id>}), one hash slot per pair so Redis Cluster works; {@code %}, {@code :}, braces in
 * names are escaped so no two pairs share a key.
 */
public final class RedisOutboundStore implements OutboundStore {

    private static final OutboundScript ACQUIRE = new OutboundScript("acquire.lua");
    private static final OutboundScript SETTLE = new OutboundScript("settle.lua");
    private static final OutboundScript CORRECT = new OutboundScript("correct.lua");

    private final RedissonClient client;
    private final boolean ownsClient;
    private final String keyPrefix;
    private final RScript script;

    private RedisOutboundStore(RedissonClient client, boolean ownsClient, String keyPrefix) {
        if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
            throw new IllegalArgumentException("A key prefix with braces would break the hash tag: " + keyPrefix);
        }
        this.client = client;
        this.ownsClient = ownsClient;
        this.keyPrefix = keyPrefix;
        this.script = client.getScript(StringCodec.INSTANCE);
    }

    /** On a client that the caller keeps and shuts down. */
    public static RedisOutboundStore using(RedissonClient client, String keyPrefix) {
        return new RedisOutboundStore(client, false, keyPrefix);
    }

    /** With its own client from {@code llm.ratelimit.redis.*}, shut down by {@link #close()}. */
    public static RedisOutboundStore create(RedisStoreSettings settings) {
        return new RedisOutboundStore(RedissonClientFactory.create(settings), true, settings.keyPrefix());
    }

    @Override
    public CompletableFuture<Grant> acquire(BucketKey key, BucketLimits limits, String permitId, Tokens tokens,
                                            long maxWaitMillis, long leaseMillis) {
        String bucket = bucketKey(key);
        return ACQUIRE.<List<Long>>run(script, RScript.ReturnType.MULTI, List.of(bucket, markerKey(bucket, permitId)),
                        args(limits, tokens.input(), tokens.output(), maxWaitMillis, leaseMillis))
                .thenApply(reply -> new Grant(Grant.Outcome.values()[reply.get(0).intValue()], reply.get(1),
                        reply.get(2) == 0 ? null : Dimension.ALL.get(reply.get(2).intValue() - 1)));
    }

    @Override
    public CompletableFuture<Boolean> settle(BucketKey key, BucketLimits limits, String permitId, Tokens actualTokens,
                                             boolean refundRequest) {
        String bucket = bucketKey(key);
        return SETTLE.<Long>run(script, RScript.ReturnType.INTEGER, List.of(bucket, markerKey(bucket, permitId)),
                        args(limits, actualTokens.input(), actualTokens.output(), refundRequest ? 1 : 0))
                .thenApply(settled -> settled == 1L);
    }

    @Override
    public CompletableFuture<Void> correct(BucketKey key, BucketLimits limits, Correction correction) {
        long[] figures = new long[2 * Dimension.ALL.size() + 1];
        for (Dimension dimension : Dimension.ALL) {
            Correction.Figure figure = correction.figure(dimension);
            figures[2 * dimension.ordinal()] = figure.remaining();
            figures[2 * dimension.ordinal() + 1] = figure.resetMillis();
        }
        figures[figures.length - 1] = correction.pauseMillis();
        return CORRECT.<Long>run(script, RScript.ReturnType.INTEGER, List.of(bucketKey(key)), args(limits, figures))
                .thenApply(done -> null);
    }

    @Override
    public void close() {
        if (ownsClient) {
            client.shutdown();
        }
    }

    String bucketKey(BucketKey key) {
        return keyPrefix + "out:{" + escape(key.provider()) + ":" + escape(key.model()) + "}";
    }

    private static String markerKey(String bucketKey, String permitId) {
        return bucketKey + ":p:" + permitId;
    }

    /** Each dimension's rate per ms and capacity (the order of {@link Dimension}), then the operands. */
    private static Object[] args(BucketLimits limits, long... operands) {
        int limitArgs = 2 * Dimension.ALL.size();
        Object[] args = new Object[limitArgs + operands.length];
        for (Dimension dimension : Dimension.ALL) {
            args[2 * dimension.ordinal()] = Double.toString(limits.ratePerMilli(dimension));
            args[2 * dimension.ordinal() + 1] = Double.toString(limits.capacity(dimension));
        }
        for (int i = 0; i < operands.length; i++) {
            args[limitArgs + i] = Long.toString(operands[i]);
        }
        return args;
    }

    /** {@code %} first, so an escaped name can never look like another name's escape. */
    private static String escape(String name) {
        return name.replace("%", "%25").replace(":", "%3A").replace("{", "%7B").replace("}", "%7D");
    }
}
