package dev.llmratelimit.outbound;

import java.util.UUID;

/** Reads a token bucket from outside: the largest estimate that fits now, without waiting (each probe is given back). */
public final class Buckets {

    private Buckets() {
    }

    /** On a clock that stands still, what is left of the token bucket of a pair of {@code limits}. */
    public static long tokensLeft(OutboundStore store, BucketKey key, BucketLimits limits) {
        return left(store, key, limits, Dimension.TOKENS);
    }

    /** The same for any token bucket: input tokens and the total probed with input, output with output. */
    public static long left(OutboundStore store, BucketKey key, BucketLimits limits, Dimension dimension) {
        long low = 0;
        long high = (long) limits.capacity(dimension);
        while (low < high) {
            long mid = (low + high + 1) / 2;
            String id = UUID.randomUUID().toString();
            Tokens probe = dimension == Dimension.OUTPUT_TOKENS ? new Tokens(0, mid) : new Tokens(mid, 0);
            if (store.acquire(key, limits, id, probe, 0, 60_000).join().outcome() == Grant.Outcome.TAKEN) {
                store.settle(key, limits, id, Tokens.NONE, true).join();
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        return low;
    }
}
