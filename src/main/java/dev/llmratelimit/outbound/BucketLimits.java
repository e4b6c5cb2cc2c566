package dev.llmratelimit.outbound;

/**
 * The buckets of one (provider, model): one per {@link Dimension} (requests, tokens, input tokens, output
 * tokens), how fast each refills and how much it holds. A dimension whose per-minute limit is 0 is not
 * limited.
 *
 * @param requestsPerMinute     the provider's RPM, 0 for none
 * @param tokensPerMinute       the provider's TPM (input and output together), 0 for none
 * @param inputTokensPerMinute  the provider's ITPM, 0 for none
 * @param outputTokensPerMinute the provider's OTPM, 0 for none
 * @param headroom              the share of the limit the buckets refill at (0 &lt; headroom &lt;= 1)
 * @param burst                 each bucket's capacity as a multiple of one minute's refill (&gt; 0)
 */
public record BucketLimits(long requestsPerMinute, long tokensPerMinute, long inputTokensPerMinute,
                           long outputTokensPerMinute, double headroom, double burst) {

    private static final double MILLIS_PER_MINUTE = 60_000.0;

    public BucketLimits {
        if (requestsPerMinute < 0 || tokensPerMinute < 0 || inputTokensPerMinute < 0 || outputTokensPerMinute < 0) {
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

    /** Requests and tokens (together) only, as OpenAI limits them. */
    public BucketLimits(long requestsPerMinute, long tokensPerMinute, double headroom, double burst) {
        this(requestsPerMinute, tokensPerMinute, 0, 0, headroom, burst);
    }

    public long perMinute(Dimension dimension) {
        return switch (dimension) {
            case REQUESTS -> requestsPerMinute;
            case TOKENS -> tokensPerMinute;
            case INPUT_TOKENS -> inputTokensPerMinute;
            case OUTPUT_TOKENS -> outputTokensPerMinute;
        };
    }

    public boolean limits(Dimension dimension) {
        return perMinute(dimension) > 0;
    }

    /** Added per millisecond; 0 when the dimension is not limited. */
    public double ratePerMilli(Dimension dimension) {
        return perMinute(dimension) * headroom / MILLIS_PER_MINUTE;
    }

    /** What the bucket holds when full; 0 when the dimension is not limited. */
    public double capacity(Dimension dimension) {
        return perMinute(dimension) * headroom * burst;
    }

    /** The bucket that one request of these tokens can never fit in, whatever the wait; {@code null} for none. */
    public Dimension neverFits(Tokens tokens) {
        for (Dimension dimension : Dimension.ALL) {
            if (limits(dimension) && capacity(dimension) < dimension.amount(tokens, 1)) {
                return dimension;
            }
        }
        return null;
    }
}
