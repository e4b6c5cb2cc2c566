package dev.llmratelimit.outbound;

import java.util.UUID;

/** Reads a token bucket from outside: the largest estimate that fits now, without waiting (each probe is given back). */
public final class Buckets {

    private Buckets() {
    }

    /** On a clock that stands still, what is left of the token bucket of a pair of {@code limits}. */
    public static long tokensLeft(OutboundStore store, BucketKey key, BucketLimits limits) {
        long low = 0;
        long high = (long) limits.capacity(Dimension.TOKENS);
        while (low < high) {
            long mid = (low + high + 1) / 2;
            String id = UUID.randomUUID().toString();
            if (store.acquire(key, limits, id, new Tokens(mid, 0), 0, 60_000).join().outcome() == Grant.Outcome.TAKEN) {
                store.settle(key, limits, id, Tokens.NONE, true).join();
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        return low;
    }
}
