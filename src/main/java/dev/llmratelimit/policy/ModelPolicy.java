package dev.llmratelimit.policy;

import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.RateLimit;

import java.util.List;
import java.util.Map;

/**
 * A model with everything resolved: capacity, threshold, and the normalised share of each
 * configured priority. Priorities not in {@link #shares()} use the shared default pool.
 *
 * @param limits               every limit per window, the configured window's written as
 *                             {@link RateLimit#CONFIGURED_WINDOW}
 * @param expectedOutputTokens completion tokens {@code token-admission=reserve} expects of a request
 *                             without {@code max_tokens} until this model's responses teach it better
 * @param expectedOutputMinTokens the least that expectation ever is, whatever the responses teach
 * @param fairness             how the pools share the model while it is saturated
 */
public record ModelPolicy(String name, List<RateLimit> limits, double saturationThreshold,
                          Map<String, Double> shares, double defaultShare, long expectedOutputTokens,
                          long expectedOutputMinTokens, Fairness fairness) {

    /** The name of the pool every caller without a configured priority shares. */
    public static final String DEFAULT_POOL = "default";

    /** Absorbs binary rounding such as 0.29 * 100 = 28.999999999999996 before rounding down. */
    private static final double ROUNDING_SLACK = 1e-9;

    public ModelPolicy {
        limits = List.copyOf(limits);
        shares = Map.copyOf(shares);
    }

    /** Requests per configured window ({@code rpm}), 0 when not configured. */
    public long rpm() {
        return amountOf(limits, Dimension.REQUESTS);
    }

    /** Tokens per configured window ({@code tpm}), 0 when not configured. */
    public long tpm() {
        return amountOf(limits, Dimension.TOKENS);
    }

    /** The amount of a dimension's limit over the configured window, 0 when there is none. */
    static long amountOf(List<RateLimit> limits, Dimension dimension) {
        for (RateLimit limit : limits) {
            if (limit.dimension() == dimension && limit.windowMillis() == RateLimit.CONFIGURED_WINDOW) {
                return limit.amount();
            }
        }
        return 0;
    }

    /** Without any reservation, pools are only tracked and only model-wide limits apply. */
    public boolean poolsEnforced() {
        return !shares.isEmpty();
    }

    /** Pool names in a fixed order: the default pool first, then the priorities sorted. */
    public List<String> poolNames() {
        return java.util.stream.Stream.concat(
                java.util.stream.Stream.of(DEFAULT_POOL),
                shares.keySet().stream().sorted()).toList();
    }

    public double shareOf(String pool) {
        Double share = shares.get(pool);
        return share != null ? share : defaultShare;
    }

    /** A pool's limit for one dimension: capacity times share, rounded down to whole units. */
    public static long poolLimit(long capacity, double share) {
        return (long) Math.floor(capacity * share + ROUNDING_SLACK);
    }
}
