package dev.llmratelimit.engine;

/**
 * The decision of SPEC section 2 as a pure function of the counters read. In-process stores call it
 * under their lock; the Redis store runs the same rule in Lua ({@code decide.lua}).
 */
public final class DecisionRule {

    private DecisionRule() {
    }

    /**
     * @param modelRequests requests counted for the model in the live window, before this one
     * @param resetMillis   milliseconds until the live window ends
     * @return the verdict; when admitted, the caller must count the request on model and pool
     */
    public static Verdict decide(DecisionPlan plan, long modelRequests, long modelTokens,
                                 long poolRequests, long poolTokens, long resetMillis) {
        long rpm = plan.modelRpm();
        long tpm = plan.modelTpm();
        double saturation = saturation(plan, modelRequests, modelTokens);
        boolean strict = plan.poolsEnforced() && saturation >= plan.saturationThreshold();

        long requestLimit = -1;
        long requestRemaining = -1;
        if (rpm > 0) {
            if (modelRequests + 1 > rpm) {
                return refused(Limit.MODEL_REQUESTS, strict, saturation, rpm, rpm - modelRequests, resetMillis);
            }
            requestLimit = rpm;
            requestRemaining = rpm - modelRequests - 1;
        }
        long tokenLimit = -1;
        long tokenRemaining = -1;
        if (tpm > 0) {
            if (modelTokens >= tpm) {
                return refused(Limit.MODEL_TOKENS, strict, saturation, tpm, 0, resetMillis);
            }
            tokenLimit = tpm;
            tokenRemaining = tpm - modelTokens;
        }
        if (strict) {
            if (rpm > 0) {
                long limit = plan.poolRpm();
                if (poolRequests + 1 > limit) {
                    return refused(Limit.POOL_REQUESTS, true, saturation, limit, limit - poolRequests, resetMillis);
                }
                if (limit - poolRequests - 1 <= requestRemaining) {
                    requestLimit = limit;
                    requestRemaining = limit - poolRequests - 1;
                }
            }
            if (tpm > 0) {
                long limit = plan.poolTpm();
                if (poolTokens >= limit) {
                    return refused(Limit.POOL_TOKENS, true, saturation, limit, 0, resetMillis);
                }
                if (limit - poolTokens <= tokenRemaining) {
                    tokenLimit = limit;
                    tokenRemaining = limit - poolTokens;
                }
            }
        }
        return new Verdict(true, null, strict, saturation, requestLimit, requestRemaining,
                tokenLimit, tokenRemaining, resetMillis);
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

    /** A refusal carries the refusing limit's figures; the other dimension is left at -1. */
    private static Verdict refused(Limit limit, boolean strict, double saturation, long limitValue,
                                   long remaining, long resetMillis) {
        long clamped = Math.max(0, remaining);
        return limit.isTokens()
                ? new Verdict(false, limit, strict, saturation, -1, -1, limitValue, clamped, resetMillis)
                : new Verdict(false, limit, strict, saturation, limitValue, clamped, -1, -1, resetMillis);
    }
}
