package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.DecisionPlan;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

/**
 * The Redis key and script arguments of one {@link DecisionPlan}, computed once per plan.
 *
 * <p>Each model has one hash, {@code <prefix>{<base64url(model)>}}. The model name is encoded, so
 * no name can contain the hash tag's braces or reach another model's key, and the whole key is its
 * own hash tag, so everything one script touches lives in one cluster slot. Pool counters are
 * fields ({@code r:<pool>}, {@code t:<pool>}) of the same hash: pool names are configured, never
 * user input, and the model-wide fields {@code r}, {@code t} and {@code e} contain no colon. A
 * sliding window keeps the previous window's counters under the same names with a {@code p} in front.
 */
final class ModelKeys {

    private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

    final String key;
    final List<Object> keys;
    final String windowMillis;
    final String poolTokenField;
    final String sliding;
    /** The arguments of {@code decide.lua}, in its order; the last one, the estimate, is per call. */
    private final Object[] decideArgs;

    ModelKeys(String prefix, DecisionPlan plan) {
        key = keyOf(prefix, plan.model());
        keys = List.of(key);
        windowMillis = Long.toString(plan.windowMillis());
        poolTokenField = "t:" + plan.pool();
        sliding = plan.slidingWindow() ? "1" : "0";
        decideArgs = new Object[] {
                windowMillis,
                Long.toString(plan.modelRpm()),
                Long.toString(plan.modelTpm()),
                Long.toString(plan.poolRpm()),
                Long.toString(plan.poolTpm()),
                plan.poolsEnforced() ? "1" : "0",
                // Double.toString round-trips exactly, so Lua's tonumber compares against the same double.
                Double.toString(plan.saturationThreshold()),
                "r:" + plan.pool(),
                poolTokenField,
                sliding,
                "0"};
    }

    /** The arguments of {@code decide.lua} for one request. */
    Object[] decideArgs(long tokenEstimate) {
        if (tokenEstimate == 0) {
            return decideArgs;
        }
        Object[] args = decideArgs.clone();
        args[args.length - 1] = Long.toString(tokenEstimate);
        return args;
    }

    static String keyOf(String prefix, String model) {
        return prefix + "{" + BASE64URL.encodeToString(model.getBytes(StandardCharsets.UTF_8)) + "}";
    }
}
