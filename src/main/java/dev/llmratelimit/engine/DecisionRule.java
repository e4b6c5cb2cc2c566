package dev.llmratelimit.engine;

/**
 * The decision of SPEC sections 2, 4 and 9 as a pure function of the counters read. In-process
 * stores call it under their lock; the Redis store runs the same rule in Lua ({@code decide.lua})
 * and rebuilds the verdict through this class.
 *
 * <p>Every limit is checked as "the effective counter is at most the allowance": the effective
 * counter is the live window's plus, in a sliding window, {@code ceil(previous * msLeft / window)};
 * the allowance is {@code limit - 1} for requests and for recorded tokens ({@code current < limit}),
 * {@code limit - estimate} for reserved tokens, and 0 when the estimate alone exceeds the limit
 * (admitted only while the counter is at zero). A limit of 0 allows nothing.
 */
public final class DecisionRule {

    private static final long NEVER = Long.MAX_VALUE;

    private DecisionRule() {
    }

    /**
     * @param tokenEstimate 0 for recorded token admission, else the tokens this request reserves
     * @return the verdict; when admitted, the caller must count the request (and the estimate) on
     *         model and pool
     */
    public static Verdict decide(DecisionPlan plan, WindowCounts counts, long tokenEstimate) {
        long rpm = plan.modelRpm();
        long tpm = plan.modelTpm();
        long requests = effective(plan, counts.requests(), counts.previousRequests(), counts.remainingMillis());
        long tokens = effective(plan, counts.tokens(), counts.previousTokens(), counts.remainingMillis());
        long poolRequests = effective(plan, counts.poolRequests(), counts.previousPoolRequests(), counts.remainingMillis());
        long poolTokens = effective(plan, counts.poolTokens(), counts.previousPoolTokens(), counts.remainingMillis());
        double saturation = saturation(plan, requests, tokens);
        boolean strict = plan.poolsEnforced() && saturation >= plan.saturationThreshold();

        Limit refusedBy = null;
        long limitValue = 0;
        long used = 0;
        if (rpm > 0 && requests > rpm - 1) {
            refusedBy = Limit.MODEL_REQUESTS;
            limitValue = rpm;
            used = requests;
        } else if (tpm > 0 && tokens > tokenAllowance(tpm, tokenEstimate)) {
            refusedBy = Limit.MODEL_TOKENS;
            limitValue = tpm;
            used = tokens;
        } else if (strict && rpm > 0 && poolRequests > plan.poolRpm() - 1) {
            refusedBy = Limit.POOL_REQUESTS;
            limitValue = plan.poolRpm();
            used = poolRequests;
        } else if (strict && tpm > 0 && poolTokens > tokenAllowance(plan.poolTpm(), tokenEstimate)) {
            refusedBy = Limit.POOL_TOKENS;
            limitValue = plan.poolTpm();
            used = poolTokens;
        }
        if (refusedBy != null) {
            long remaining = Math.max(0, limitValue - used);
            long clears = clearsInMillis(plan, counts, tokenEstimate, strict);
            return refusedBy.isTokens()
                    ? new Verdict(false, refusedBy, strict, saturation, -1, -1, limitValue, remaining, clears, counts.windowEnd())
                    : new Verdict(false, refusedBy, strict, saturation, limitValue, remaining, -1, -1, clears, counts.windowEnd());
        }

        long requestLimit = rpm > 0 ? rpm : -1;
        long requestRemaining = rpm > 0 ? rpm - requests - 1 : -1;
        long tokenLimit = tpm > 0 ? tpm : -1;
        long tokenRemaining = tpm > 0 ? Math.max(0, tpm - tokens - tokenEstimate) : -1;
        if (strict && rpm > 0 && plan.poolRpm() - poolRequests - 1 <= requestRemaining) {
            requestLimit = plan.poolRpm();
            requestRemaining = plan.poolRpm() - poolRequests - 1;
        }
        if (strict && tpm > 0) {
            long poolRemaining = Math.max(0, plan.poolTpm() - poolTokens - tokenEstimate);
            if (poolRemaining <= tokenRemaining) {
                tokenLimit = plan.poolTpm();
                tokenRemaining = poolRemaining;
            }
        }
        return new Verdict(true, null, strict, saturation, requestLimit, requestRemaining,
                tokenLimit, tokenRemaining, counts.remainingMillis(), counts.windowEnd());
    }

    /** {@code max(requests / rpm, tokens / tpm)} over the dimensions the model configures. */
    public static double saturation(DecisionPlan plan, long modelRequests, long modelTokens) {
        double saturation = 0.0;
        if (plan.modelRpm() > 0) {
            saturation = (double) modelRequests / plan.modelRpm();
        }
        if (plan.modelTpm() > 0) {
            saturation = Math.max(saturation, (double) modelTokens / plan.modelTpm());
        }
        return saturation;
    }

    /** The live window's count plus the weighted previous window's (sliding windows only). */
    static long effective(DecisionPlan plan, long current, long previous, long remainingMillis) {
        if (!plan.slidingWindow() || previous == 0) {
            return current;
        }
        return current - Math.floorDiv(-previous * remainingMillis, plan.windowMillis());
    }

    /** The largest effective token count that still admits a request reserving {@code estimate}. */
    static long tokenAllowance(long limit, long estimate) {
        if (estimate == 0) {
            return limit - 1;
        }
        return limit == 0 ? -1 : Math.max(0, limit - estimate);
    }

    /**
     * How long until every failing enforced limit would pass if no other request came. A fixed
     * window clears only when it ends. In a sliding window the weighted previous counters shrink as
     * time passes; a pool refusal also clears once the model's saturation falls below the threshold.
     */
    private static long clearsInMillis(DecisionPlan plan, WindowCounts c, long tokenEstimate, boolean strict) {
        long left = c.remainingMillis();
        if (!plan.slidingWindow()) {
            return left;
        }
        long window = plan.windowMillis();
        long wait = 0;
        if (plan.modelRpm() > 0) {
            wait = Math.max(wait, clearsInMillis(plan.modelRpm() - 1, c.requests(), c.previousRequests(), left, window));
        }
        if (plan.modelTpm() > 0) {
            wait = Math.max(wait, clearsInMillis(tokenAllowance(plan.modelTpm(), tokenEstimate),
                    c.tokens(), c.previousTokens(), left, window));
        }
        if (strict) {
            long generousIn = generousInMillis(plan, c, left, window);
            if (plan.modelRpm() > 0) {
                wait = Math.max(wait, Math.min(generousIn, clearsInMillis(plan.poolRpm() - 1,
                        c.poolRequests(), c.previousPoolRequests(), left, window)));
            }
            if (plan.modelTpm() > 0) {
                wait = Math.max(wait, Math.min(generousIn, clearsInMillis(tokenAllowance(plan.poolTpm(), tokenEstimate),
                        c.poolTokens(), c.previousPoolTokens(), left, window)));
            }
        }
        return wait == NEVER ? left : wait;
    }

    /** How long until the model's saturation falls below its threshold. */
    private static long generousInMillis(DecisionPlan plan, WindowCounts c, long left, long window) {
        long wait = 0;
        if (plan.modelRpm() > 0) {
            wait = Math.max(wait, clearsInMillis(belowThreshold(plan, plan.modelRpm()),
                    c.requests(), c.previousRequests(), left, window));
        }
        if (plan.modelTpm() > 0) {
            wait = Math.max(wait, clearsInMillis(belowThreshold(plan, plan.modelTpm()),
                    c.tokens(), c.previousTokens(), left, window));
        }
        return wait;
    }

    /** The largest count whose share of {@code capacity} is below the saturation threshold. */
    private static long belowThreshold(DecisionPlan plan, long capacity) {
        return (long) Math.ceil(plan.saturationThreshold() * capacity) - 1;
    }

    /**
     * How long until {@code current + ceil(previous * msLeft / window) <= allowance}: still in this
     * window when the live count alone fits, else in the next one, where the live count becomes
     * the previous one.
     */
    private static long clearsInMillis(long allowance, long current, long previous, long left, long window) {
        if (allowance < 0) {
            return NEVER;
        }
        if (current <= allowance) {
            long longestLeft = previous == 0 ? left : (allowance - current) * window / previous;
            return Math.max(0, left - longestLeft);
        }
        return left + window - allowance * window / current;
    }
}
