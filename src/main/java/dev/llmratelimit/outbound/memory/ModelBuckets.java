package dev.llmratelimit.outbound.memory;

import dev.llmratelimit.outbound.BucketLimits;
import dev.llmratelimit.outbound.Correction;
import dev.llmratelimit.outbound.Dimension;
import dev.llmratelimit.outbound.Grant;
import dev.llmratelimit.outbound.Tokens;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * The buckets of one (provider, model) in this JVM, one per {@link Dimension}, with the permits not yet
 * settled. The same rule as {@code acquire.lua}, {@code settle.lua} and {@code correct.lua}; used by one
 * thread at a time. A dimension that is not limited keeps a level of 0 and is never read.
 */
final class ModelBuckets {

    private record Pending(Tokens tokens, long expiresAt) {
    }

    private final double[] levels = new double[Dimension.ALL.size()];
    private long updatedAt;
    private long pausedUntil;
    private final Map<String, Pending> pending = new HashMap<>();

    ModelBuckets(BucketLimits limits, long now) {
        for (Dimension dimension : Dimension.ALL) {
            levels[dimension.ordinal()] = limits.capacity(dimension);
        }
        this.updatedAt = now;
    }

    Grant acquire(BucketLimits limits, long now, String permitId, Tokens cost, long maxWaitMillis, long leaseMillis) {
        Dimension neverFits = limits.neverFits(cost);
        if (neverFits != null) {
            return Grant.neverFits(neverFits);
        }
        refill(limits, now);
        long wait = Math.max(pausedUntil - now, 0);
        Dimension shortOf = null;
        for (Dimension dimension : Dimension.ALL) {
            double level = levels[dimension.ordinal()];
            long amount = dimension.amount(cost, 1);
            if (limits.limits(dimension) && level < amount) {
                long until = (long) Math.ceil((amount - level) / limits.ratePerMilli(dimension));
                if (until > wait) {
                    wait = until;
                    shortOf = dimension;
                }
            }
        }
        if (wait > maxWaitMillis) {
            return Grant.waitTooLong(wait, shortOf);
        }
        for (Dimension dimension : Dimension.ALL) {
            if (limits.limits(dimension)) {
                levels[dimension.ordinal()] -= dimension.amount(cost, 1);
            }
        }
        pending.put(permitId, new Pending(cost, now + wait + leaseMillis));
        return Grant.taken(wait);
    }

    boolean settle(BucketLimits limits, long now, String permitId, Tokens actual, boolean refundRequest) {
        dropExpired(now);
        Pending permit = pending.remove(permitId);
        if (permit == null) {
            return false;
        }
        refill(limits, now);
        for (Dimension dimension : Dimension.ALL) {
            if (limits.limits(dimension)) {
                double back = dimension.amount(permit.tokens(), 1) - dimension.amount(actual, refundRequest ? 0 : 1);
                levels[dimension.ordinal()] = Math.min(limits.capacity(dimension), levels[dimension.ordinal()] + back);
            }
        }
        return true;
    }

    void correct(BucketLimits limits, long now, Correction correction) {
        refill(limits, now);
        for (Dimension dimension : Dimension.ALL) {
            if (limits.limits(dimension)) {
                levels[dimension.ordinal()] = lowered(levels[dimension.ordinal()], limits.capacity(dimension),
                        limits.ratePerMilli(dimension), correction.figure(dimension));
            }
        }
        if (correction.pauseMillis() > 0) {
            pausedUntil = Math.max(pausedUntil, now + correction.pauseMillis());
        }
    }

    /**
     * The provider has {@code remaining} now and is full again in {@code resetMillis}: this bucket holds
     * no more than that now, and is not full before then (were it to refill faster, it would be ahead of
     * the provider at some moment in between).
     */
    static double lowered(double level, double capacity, double ratePerMilli, Correction.Figure figure) {
        if (figure.remaining() == Correction.NONE) {
            return level;
        }
        double lowered = Math.min(level, figure.remaining());
        if (figure.resetMillis() != Correction.NONE) {
            lowered = Math.min(lowered, capacity - ratePerMilli * figure.resetMillis());
        }
        return lowered;
    }

    /** Full, unpaused and owed nothing: indistinguishable from new buckets, so they may be forgotten. */
    boolean idle(BucketLimits limits, long now) {
        dropExpired(now);
        refill(limits, now);
        if (!pending.isEmpty() || pausedUntil > now) {
            return false;
        }
        for (Dimension dimension : Dimension.ALL) {
            if (levels[dimension.ordinal()] < limits.capacity(dimension)) {
                return false;
            }
        }
        return true;
    }

    private void refill(BucketLimits limits, long now) {
        long elapsed = now - updatedAt;
        if (elapsed <= 0) {
            return;
        }
        for (Dimension dimension : Dimension.ALL) {
            levels[dimension.ordinal()] = Math.min(limits.capacity(dimension),
                    levels[dimension.ordinal()] + elapsed * limits.ratePerMilli(dimension));
        }
        updatedAt = now;
    }

    private void dropExpired(long now) {
        for (Iterator<Pending> it = pending.values().iterator(); it.hasNext(); ) {
            if (it.next().expiresAt() <= now) {
                it.remove();
            }
        }
    }
}
