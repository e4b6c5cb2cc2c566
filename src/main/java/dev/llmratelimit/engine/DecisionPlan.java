package dev.llmratelimit.engine;

/**
 * Everything a store needs to decide one request for one (model, pool), computed once when the
 * policy is built. A limit of 0 means the model does not configure that dimension.
 *
 * @param poolIndex     position of the pool among the model's pools (0 is the default pool)
 * @param poolCount     number of pools of the model
 * @param poolsEnforced false when no reservation is configured: pools are then only tracked
 * @param slidingWindow {@code window-mode=sliding}: the previous window's counters count too,
 *                      weighted by the part of it still inside the sliding span
 */
public record DecisionPlan(String model, String pool, int poolIndex, int poolCount,
                           long modelRpm, long modelTpm, long poolRpm, long poolTpm,
                           boolean poolsEnforced, double saturationThreshold, long windowMillis,
                           boolean slidingWindow) {

    /** A plan with a fixed window. */
    public DecisionPlan(String model, String pool, int poolIndex, int poolCount,
                        long modelRpm, long modelTpm, long poolRpm, long poolTpm,
                        boolean poolsEnforced, double saturationThreshold, long windowMillis) {
        this(model, pool, poolIndex, poolCount, modelRpm, modelTpm, poolRpm, poolTpm,
                poolsEnforced, saturationThreshold, windowMillis, false);
    }

    public boolean limitsRequests() {
        return modelRpm > 0;
    }

    public boolean limitsTokens() {
        return modelTpm > 0;
    }
}
