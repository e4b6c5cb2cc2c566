package dev.llmratelimit.engine;

/**
 * The limits of one counter group; {@link #NONE} ({@code -1}) where the group does not limit that
 * dimension. A limit of 0 allows nothing (a pool with no share, a budget of 0).
 *
 * @param requests requests per window
 * @param tokens   tokens per window
 * @param parallel requests in flight at once
 * @param micros   micro-dollars per budget period
 */
public record Limits(long requests, long tokens, long parallel, long micros) {

    public static final long NONE = -1;

    public static final Limits UNLIMITED = new Limits(NONE, NONE, NONE, NONE);

    public boolean limitsRequests() {
        return requests >= 0;
    }

    public boolean limitsTokens() {
        return tokens >= 0;
    }

    public boolean limitsParallel() {
        return parallel >= 0;
    }

    public boolean limitsMoney() {
        return micros >= 0;
    }

    /** The limit of one dimension, {@link #NONE} if not limited. */
    public long of(Dimension dimension) {
        return switch (dimension) {
            case REQUESTS -> requests;
            case TOKENS -> tokens;
            case PARALLEL_REQUESTS -> parallel;
            case MONEY -> micros;
        };
    }

    /** A configured limit where 0 means "not set" (per-caller limits) as a {@link Limits} figure. */
    public static long configured(long limit) {
        return limit > 0 ? limit : NONE;
    }
}
