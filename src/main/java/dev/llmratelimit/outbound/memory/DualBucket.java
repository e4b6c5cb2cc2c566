package dev.llmratelimit.outbound.memory;

import dev.llmratelimit.outbound.BucketLimits;
import dev.llmratelimit.outbound.Correction;
import dev.llmratelimit.outbound.Grant;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * The request and token buckets of one (provider, model) in this JVM, with the permits not yet
 * settled. The same rule as {@code acquire.lua}, {@code settle.lua} and {@code correct.lua}; used by one
 * thread at a time.
 */
final class DualBucket {

    private record Pending(long tokens, long expiresAt) {
    }

    private double requests;
    private double tokens;
    private long updatedAt;
    private long pausedUntil;
    private final Map<String, Pending> pending = new HashMap<>();

    DualBucket(BucketLimits limits, long now) {
        this.requests = limits.requestCapacity();
        this.tokens = limits.tokenCapacity();
        this.updatedAt = now;
    }

    Grant acquire(BucketLimits limits, long now, String permitId, long cost, long maxWaitMillis, long leaseMillis) {
        if (!limits.fits(cost)) {
            return new Grant(Grant.Outcome.NEVER_FITS, 0);
        }
        refill(limits, now);
        long wait = Math.max(pausedUntil - now, 0);
        if (limits.limitsRequests() && requests < 1) {
            wait = Math.max(wait, (long) Math.ceil((1 - requests) / limits.requestRatePerMilli()));
        }
        if (limits.limitsTokens() && tokens < cost) {
            wait = Math.max(wait, (long) Math.ceil((cost - tokens) / limits.tokenRatePerMilli()));
        }
        if (wait > maxWaitMillis) {
            return new Grant(Grant.Outcome.WAIT_TOO_LONG, wait);
        }
        if (limits.limitsRequests()) {
            requests -= 1;
        }
        if (limits.limitsTokens()) {
            tokens -= cost;
        }
        pending.put(permitId, new Pending(cost, now + wait + leaseMillis));
        return Grant.taken(wait);
    }

    boolean settle(BucketLimits limits, long now, String permitId, long actualTokens, boolean refundRequest) {
        dropExpired(now);
        Pending permit = pending.remove(permitId);
        if (permit == null) {
            return false;
        }
        refill(limits, now);
        if (limits.limitsTokens()) {
            tokens = Math.min(limits.tokenCapacity(), tokens + (double) permit.tokens() - actualTokens);
        }
        if (refundRequest && limits.limitsRequests()) {
            requests = Math.min(limits.requestCapacity(), requests + 1);
        }
        return true;
    }

    void correct(BucketLimits limits, long now, Correction correction) {
        refill(limits, now);
        if (limits.limitsRequests()) {
            requests = lowered(requests, limits.requestCapacity(), limits.requestRatePerMilli(),
                    correction.remainingRequests(), correction.requestsResetMillis());
        }
        if (limits.limitsTokens()) {
            tokens = lowered(tokens, limits.tokenCapacity(), limits.tokenRatePerMilli(),
                    correction.remainingTokens(), correction.tokensResetMillis());
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
    static double lowered(double level, double capacity, double ratePerMilli, long remaining, long resetMillis) {
        if (remaining == Correction.NONE) {
            return level;
        }
        double lowered = Math.min(level, remaining);
        if (resetMillis != Correction.NONE) {
            lowered = Math.min(lowered, capacity - ratePerMilli * resetMillis);
        }
        return lowered;
    }

    /** Full, unpaused and owed nothing: indistinguishable from a new bucket, so it may be forgotten. */
    boolean idle(BucketLimits limits, long now) {
        dropExpired(now);
        refill(limits, now);
        return pending.isEmpty() && pausedUntil <= now
                && requests >= limits.requestCapacity() && tokens >= limits.tokenCapacity();
    }

    double requests() {
        return requests;
    }

    double tokens() {
        return tokens;
    }

    private void refill(BucketLimits limits, long now) {
        long elapsed = now - updatedAt;
        if (elapsed <= 0) {
            return;
        }
        requests = Math.min(limits.requestCapacity(), requests + elapsed * limits.requestRatePerMilli());
        tokens = Math.min(limits.tokenCapacity(), tokens + elapsed * limits.tokenRatePerMilli());
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
