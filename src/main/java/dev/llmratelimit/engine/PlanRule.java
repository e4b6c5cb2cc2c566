package dev.llmratelimit.engine;

import java.util.List;

/**
 * The decision of docs/admission.md as a pure function of the counters read. The
 * memory store calls it under its locks; the Redis store runs the same rule in Lua
 * ({@code admit.lua}) and rebuilds the verdict through this class.
 *
 * <p>Groups are checked in plan order, each dimension as "the effective counter is at most the
 * allowance": the effective counter is the live window's plus, in a sliding window,
 * {@code ceil(previous * msLeft / window)}; the allowance is {@code limit - 1} for requests, for
 * recorded tokens ({@code current < limit}), {@code limit - reserved} for reservations
 * (0 when the reservation alone exceeds the limit: admitted only while the counter is at zero),
 * {@code limit - 1} slots in flight, and for money {@code budget - max(1, worst case)} (see
 * {@link #moneyAllowance}). A limit of 0 allows nothing. Pool groups are enforced
 * only while the model group's saturation is at or above their threshold.
 */
public final class PlanRule {

    private static final long NEVER = Long.MAX_VALUE;
    /** Products up to 2^53 are exact in a double; above, the scripts and this class round alike. */
    private static final long EXACT = 1L << 53;

    private PlanRule() {
    }

    /** @param counts one per group of the plan, in its order */
    public static Verdict decide(Plan plan, GroupCounts[] counts) {
        List<CounterGroup> groups = plan.groups();
        int model = plan.modelIndex();
        double saturation = model < 0 ? 0.0 : saturation(groups.get(model), counts[model]);
        boolean strict = false;
        for (int i = 0; i < groups.size(); i++) {
            CounterGroup group = groups.get(i);
            if (!group.enforcement().enforcedAt(saturation)) {
                continue;
            }
            strict |= group.enforcement().mode() == Enforcement.Mode.WHEN_SATURATED;
            Refusal refusal = check(i, group, counts[i]);
            if (refusal != null) {
                return refused(plan, counts, refusal, saturation);
            }
        }
        return admitted(plan, counts, saturation, strict);
    }

    private static Refusal check(int index, CounterGroup group, GroupCounts c) {
        Limits limits = group.limits();
        Increments add = group.increments();
        if (limits.limitsRequests()) {
            long requests = effective(group.window(), c.requests(), c.previousRequests(), c.remainingMillis());
            if (requests > limits.requests() - 1) {
                return new Refusal(index, group, Dimension.REQUESTS, limits.requests(), requests, 0);
            }
        }
        if (limits.limitsTokens()) {
            long tokens = effective(group.window(), c.tokens(), c.previousTokens(), c.remainingMillis());
            if (tokens > allowance(limits.tokens(), add.tokens())) {
                return new Refusal(index, group, Dimension.TOKENS, limits.tokens(), tokens, 0);
            }
        }
        if (limits.limitsParallel() && c.inFlight() > limits.parallel() - 1) {
            return new Refusal(index, group, Dimension.PARALLEL_REQUESTS, limits.parallel(), c.inFlight(), 0);
        }
        if (limits.limitsMoney() && c.heldMicros() > moneyAllowance(limits.micros(), add.micros())) {
            return new Refusal(index, group, Dimension.MONEY, limits.micros(), c.micros(), 0, c.reservedMicros());
        }
        return null;
    }

    private static Verdict refused(Plan plan, GroupCounts[] counts, Refusal found, double saturation) {
        boolean modelOrPool = found.modelLimit() != null;
        long clears = modelOrPool ? modelClearsInMillis(plan, counts, saturation)
                : groupClearsInMillis(found.group(), counts[found.index()], found.dimension());
        Refusal refusal = found.at(found.index(), clears);
        boolean strict = strict(plan, saturation);
        BudgetFigures budget = BudgetFigures.of(plan, counts);
        if (!modelOrPool) {
            return new Verdict(refusal, strict, saturation, -1, -1, -1, -1, clears, budget);
        }
        return found.dimension() == Dimension.TOKENS
                ? new Verdict(refusal, strict, saturation, -1, -1, found.limit(), refusal.remaining(), clears, budget)
                : new Verdict(refusal, strict, saturation, found.limit(), refusal.remaining(), -1, -1, clears, budget);
    }

    private static boolean strict(Plan plan, double saturation) {
        for (CounterGroup group : plan.groups()) {
            if (group.enforcement().mode() == Enforcement.Mode.WHEN_SATURATED && group.enforcement().enforcedAt(saturation)) {
                return true;
            }
        }
        return false;
    }

    /** The headers' figures: the model's, or an enforced pool's where that is tighter. */
    private static Verdict admitted(Plan plan, GroupCounts[] counts, double saturation, boolean strict) {
        int model = plan.modelIndex();
        if (model < 0) {
            return new Verdict(null, strict, saturation, -1, -1, -1, -1, firstRemaining(counts),
                    BudgetFigures.of(plan, counts));
        }
        long requestLimit = -1;
        long requestRemaining = -1;
        long tokenLimit = -1;
        long tokenRemaining = -1;
        for (int i = 0; i < counts.length; i++) {
            CounterGroup group = plan.group(i);
            boolean headline = i == model || group.kind() == GroupKind.POOL && group.enforcement().enforcedAt(saturation)
                    && group.enforcement().mode() == Enforcement.Mode.WHEN_SATURATED;
            if (!headline) {
                continue;
            }
            GroupCounts c = counts[i];
            Limits limits = group.limits();
            if (limits.limitsRequests()) {
                long remaining = limits.requests()
                        - effective(group.window(), c.requests(), c.previousRequests(), c.remainingMillis()) - 1;
                if (requestLimit < 0 || remaining <= requestRemaining) {
                    requestLimit = limits.requests();
                    requestRemaining = remaining;
                }
            }
            if (limits.limitsTokens()) {
                long used = effective(group.window(), c.tokens(), c.previousTokens(), c.remainingMillis());
                long remaining = Math.max(0, limits.tokens() - used - group.increments().tokens());
                if (tokenLimit < 0 || remaining <= tokenRemaining) {
                    tokenLimit = limits.tokens();
                    tokenRemaining = remaining;
                }
            }
        }
        return new Verdict(null, strict, saturation, requestLimit, requestRemaining, tokenLimit, tokenRemaining,
                counts[model].remainingMillis(), BudgetFigures.of(plan, counts));
    }

    private static long firstRemaining(GroupCounts[] counts) {
        for (GroupCounts c : counts) {
            if (c.remainingMillis() > 0) {
                return c.remainingMillis();
            }
        }
        return 0;
    }

    /** {@code max(requests / rpm, tokens / tpm)} over the dimensions the model group limits. */
    public static double saturation(CounterGroup model, GroupCounts c) {
        Limits limits = model.limits();
        double saturation = 0.0;
        if (limits.limitsRequests() && limits.requests() > 0) {
            saturation = (double) effective(model.window(), c.requests(), c.previousRequests(), c.remainingMillis())
                    / limits.requests();
        }
        if (limits.limitsTokens() && limits.tokens() > 0) {
            saturation = Math.max(saturation, (double) effective(model.window(), c.tokens(), c.previousTokens(),
                    c.remainingMillis()) / limits.tokens());
        }
        return saturation;
    }

    /** The live window's count plus the weighted previous window's (sliding windows only). */
    public static long effective(GroupWindow window, long current, long previous, long remainingMillis) {
        if (!window.sliding() || previous == 0) {
            return current;
        }
        return Saturating.add(current, weighted(previous, remainingMillis, window.millis()));
    }

    /** {@code ceil(previous * left / window)}: exact while the product fits a double exactly. */
    static long weighted(long previous, long left, long window) {
        if (left <= 0) {
            return 0;
        }
        if (previous <= EXACT / left) {
            return -Math.floorDiv(-previous * left, window);
        }
        return (long) Math.ceil((double) previous / window * left);
    }

    /** The largest effective count that still admits a request adding {@code reserved}. */
    static long allowance(long limit, long reserved) {
        if (reserved == 0) {
            return limit - 1;
        }
        return limit == 0 ? -1 : Math.max(0, limit - reserved);
    }

    /**
     * The most a budget may hold (spent and reserved) and still admit a request adding
     * {@code worstCase}: something must be left and the worst case must fit it, so a budget of 0
     * refuses everything, a free request is refused once the budget is spent, and a worst case above
     * the budget is refused even on an empty counter (docs/budgets.md).
     */
    static long moneyAllowance(long budget, long worstCase) {
        return budget - Math.max(1, worstCase);
    }

    /**
     * How long until a refusal by one (non-model) group clears: the rest of its window or period;
     * in a sliding window possibly sooner; a parallel slot is retried after 1 s.
     */
    private static long groupClearsInMillis(CounterGroup group, GroupCounts c, Dimension dimension) {
        long left = c.remainingMillis();
        GroupWindow window = group.window();
        if (dimension == Dimension.PARALLEL_REQUESTS) {
            return 0;
        }
        if (!window.sliding()) {
            return left;
        }
        long wait = dimension == Dimension.REQUESTS
                ? clearsInMillis(group.limits().requests() - 1, c.requests(), c.previousRequests(), left, window.millis())
                : clearsInMillis(allowance(group.limits().tokens(), group.increments().tokens()),
                        c.tokens(), c.previousTokens(), left, window.millis());
        return wait == NEVER ? left : wait;
    }

    /**
     * How long until every failing model and pool limit would pass if no other request came. A
     * fixed window clears only when it ends. In a sliding window the weighted previous counters
     * shrink as time passes; a pool refusal also clears once the model's saturation falls below
     * the threshold.
     */
    private static long modelClearsInMillis(Plan plan, GroupCounts[] counts, double saturation) {
        int modelIndex = plan.modelIndex();
        CounterGroup model = plan.group(modelIndex);
        GroupCounts m = counts[modelIndex];
        long left = m.remainingMillis();
        if (!model.window().sliding()) {
            return left;
        }
        long window = model.window().millis();
        Limits limits = model.limits();
        long wait = Math.max(dimensionClears(model, m, Dimension.REQUESTS, limits.requests() - 1, left),
                dimensionClears(model, m, Dimension.TOKENS, allowance(limits.tokens(), model.increments().tokens()), left));
        for (int i = 0; i < counts.length; i++) {
            CounterGroup pool = plan.group(i);
            if (pool.kind() != GroupKind.POOL || !pool.enforcement().enforcedAt(saturation)
                    || pool.enforcement().mode() != Enforcement.Mode.WHEN_SATURATED) {
                continue;
            }
            long generousIn = generousInMillis(model, m, pool.enforcement().threshold(), left);
            GroupCounts p = counts[i];
            if (pool.limits().limitsRequests()) {
                wait = Math.max(wait, Math.min(generousIn,
                        clearsInMillis(pool.limits().requests() - 1, p.requests(), p.previousRequests(), left, window)));
            }
            if (pool.limits().limitsTokens()) {
                wait = Math.max(wait, Math.min(generousIn, clearsInMillis(
                        allowance(pool.limits().tokens(), pool.increments().tokens()), p.tokens(), p.previousTokens(),
                        left, window)));
            }
        }
        return wait == NEVER ? left : wait;
    }

    private static long dimensionClears(CounterGroup group, GroupCounts c, Dimension dimension, long allowance, long left) {
        if (group.limits().of(dimension) < 0) {
            return 0;
        }
        return dimension == Dimension.REQUESTS
                ? clearsInMillis(allowance, c.requests(), c.previousRequests(), left, group.window().millis())
                : clearsInMillis(allowance, c.tokens(), c.previousTokens(), left, group.window().millis());
    }

    /** How long until the model's saturation falls below the threshold. */
    private static long generousInMillis(CounterGroup model, GroupCounts c, double threshold, long left) {
        Limits limits = model.limits();
        long wait = 0;
        if (limits.limitsRequests()) {
            wait = Math.max(wait, dimensionClears(model, c, Dimension.REQUESTS, belowThreshold(threshold, limits.requests()), left));
        }
        if (limits.limitsTokens()) {
            wait = Math.max(wait, dimensionClears(model, c, Dimension.TOKENS, belowThreshold(threshold, limits.tokens()), left));
        }
        return wait;
    }

    /** The largest count whose share of {@code capacity} is below the saturation threshold. */
    private static long belowThreshold(double threshold, long capacity) {
        return (long) Math.ceil(threshold * capacity) - 1;
    }

    /** {@code a * b / c} for non-negative figures, in doubles only where the product overflows. */
    private static long mulDiv(long a, long b, long c) {
        return Math.multiplyHigh(a, b) == 0 && a * b >= 0 ? a * b / c : (long) ((double) a * b / c);
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
            long longestLeft = previous == 0 ? left : mulDiv(allowance - current, window, previous);
            return Math.max(0, left - longestLeft);
        }
        return left + window - mulDiv(allowance, window, current);
    }
}
