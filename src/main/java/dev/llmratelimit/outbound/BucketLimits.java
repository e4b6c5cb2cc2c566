package dev.llmratelimit.outbound;

/**
 * The two buckets of one (provider, model): how fast each refills and how much it holds.
 * A dimension whose per-minute limit is 0 is not limited.
 *
 * @param requestsPerMinute the provider's RPM, 0 for none
 * @param tokensPerMinute   the provider's TPM, 0 for none
 * @param headroom          the share of the limit the buckets refill at (0 &lt; headroom &lt;= 1)
 * @param burst             each bucket's capacity as a multiple of one minute's refill (&gt; 0)
 */
public record BucketLimits(long requestsPerMinute, long tokensPerMinute, double headroom, double burst) {

    private static final double MILLIS_PER_MINUTE = 60_000.0;

    public BucketLimits {
        if (requestsPerMinute < 0 || tokensPerMinute < 0) {
            throw new IllegalArgumentException("limits must be 0 (none) or more");
        }
        if (!(headroom > 0 && headroom <= 1)) {
            throw new IllegalArgumentException("headroom must be above 0 and at most 1: " + headroom);
        }
        if (!(burst > 0) || Double.isInfinite(burst)) {
            throw new IllegalArgumentException("burst must be above 0: " + burst);
        }
        if (requestsPerMinute > 0 && requestsPerMinute * headroom * burst < 1) {
            throw new IllegalArgumentException("rpm x headroom x burst (" + requestsPerMinute + " x " + headroom
                    + " x " + burst + ") leaves no room for a single request");
        }
    }

    public boolean limitsRequests() {
        return requestsPerMinute > 0;
    }

    public boolean limitsTokens() {
        return tokensPerMinute > 0;
    }

    /** Requests added per millisecond; 0 when requests are not limited. */
    public double requestRatePerMilli() {
        return requestsPerMinute * headroom / MILLIS_PER_MINUTE;
    }

    /** Tokens added per millisecond; 0 when tokens are not limited. */
    public double tokenRatePerMilli() {
        return tokensPerMinute * headroom / MILLIS_PER_MINUTE;
    }

    /** What the request bucket holds when full; 0 when requests are not limited. */
    public double requestCapacity() {
        return requestsPerMinute * headroom * burst;
    }

    /** What the token bucket holds when full; 0 when tokens are not limited. */
    public double tokenCapacity() {
        return tokensPerMinute * headroom * burst;
    }

    /** Whether one request of this many tokens can ever be taken, whatever the wait. */
    public boolean fits(long tokens) {
        return (!limitsRequests() || requestCapacity() >= 1) && (!limitsTokens() || tokenCapacity() >= tokens);
    }
}
