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
        double saturation = saturation(plan, counts);
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
        for (Dimension dimension : Dimension.WINDOWED) {
            if (limits.limits(dimension)) {
                long used = effective(group, c, dimension);
                if (used > allowance(group, dimension)) {
                    return new Refusal(index, group, dimension, limits.of(dimension), used, 0);
                }
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

    /** The largest effective count of a windowed dimension that still admits the group's increments. */
    private static long allowance(CounterGroup group, Dimension dimension) {
        long limit = group.limits().of(dimension);
        return dimension == Dimension.REQUESTS ? limit - 1 : allowance(limit, group.increments().of(dimension));
    }

    private static long effective(CounterGroup group, GroupCounts c, Dimension dimension) {
        return effective(group.window(), c.current(dimension), c.previous(dimension), c.remainingMillis());
    }

    private static Verdict refused(Plan plan, GroupCounts[] counts, Refusal found, double saturation) {
        boolean modelOrPool = found.modelLimit() != null;
        long clears = modelOrPool ? modelClearsInMillis(plan, counts, saturation)
                : groupClearsInMillis(found.group(), counts[found.index()], found.dimension());
        Refusal refusal = found.at(found.index(), clears);
        boolean strict = strict(plan, saturation);
        BudgetFigures budget = BudgetFigures.of(plan, counts);
        long[] limits = Verdict.noFigures();
        long[] remaining = Verdict.noFigures();
        if (modelOrPool) {
            limits[found.dimension().index()] = found.limit();
            remaining[found.dimension().index()] = refusal.remaining();
        }
        return new Verdict(refusal, strict, saturation, limits, remaining, clears, budget);
    }

    private static boolean strict(Plan plan, double saturation) {
        for (CounterGroup group : plan.groups()) {
            if (headlinePool(group, saturation)) {
                return true;
            }
        }
        return false;
    }

    /** A pool held to its share at this saturation. */
    private static boolean headlinePool(CounterGroup group, double saturation) {
        return group.kind() == GroupKind.POOL && group.enforcement().mode() == Enforcement.Mode.WHEN_SATURATED
                && group.enforcement().enforcedAt(saturation);
    }

    /** The headers' figures: per dimension the tightest of the model's limits and an enforced pool's. */
    private static Verdict admitted(Plan plan, GroupCounts[] counts, double saturation, boolean strict) {
        int model = plan.modelIndex();
        long[] limits = Verdict.noFigures();
        long[] remaining = Verdict.noFigures();
        if (model < 0) {
            return new Verdict(null, strict, saturation, limits, remaining, firstRemaining(counts),
                    BudgetFigures.of(plan, counts));
        }
        for (int i = 0; i < counts.length; i++) {
            CounterGroup group = plan.group(i);
            if (group.kind() != GroupKind.MODEL && !headlinePool(group, saturation)) {
                continue;
            }
            for (Dimension dimension : Dimension.WINDOWED) {
                if (!group.limits().limits(dimension)) {
                    continue;
                }
                long limit = group.limits().of(dimension);
                long used = effective(group, counts[i], dimension);
                long left = dimension == Dimension.REQUESTS ? limit - used - 1
                        : Math.max(0, limit - used - group.increments().of(dimension));
                int d = dimension.index();
                if (limits[d] < 0 || left <= remaining[d]) {
                    limits[d] = limit;
                    remaining[d] = left;
                }
            }
        }
        return new Verdict(null, strict, saturation, limits, remaining, counts[model].remainingMillis(),
                BudgetFigures.of(plan, counts));
    }

    private static long firstRemaining(GroupCounts[] counts) {
        for (GroupCounts c : counts) {
            if (c.remainingMillis() > 0) {
                return c.remainingMillis();
            }
        }
        return 0;
    }

    /** The highest saturation over every model group of the plan (one per window length); 0 without one. */
    public static double saturation(Plan plan, GroupCounts[] counts) {
        double saturation = 0.0;
        for (int i = 0; i < counts.length; i++) {
            if (plan.group(i).kind() == GroupKind.MODEL) {
                saturation = Math.max(saturation, saturation(plan.group(i), counts[i]));
            }
        }
        return saturation;
    }

    /** {@code max(current / limit)} over the windowed dimensions the model group limits. */
    public static double saturation(CounterGroup model, GroupCounts c) {
        Limits limits = model.limits();
        double saturation = 0.0;
        for (Dimension dimension : Dimension.WINDOWED) {
            long limit = limits.of(dimension);
            if (limit > 0) {
                saturation = Math.max(saturation, (double) effective(model, c, dimension) / limit);
            }
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
        if (dimension == Dimension.PARALLEL_REQUESTS) {
            return 0;
        }
        if (!group.window().sliding() || !dimension.isWindowed()) {
            return c.remainingMillis();
        }
        long wait = clearsInMillis(group, c, dimension, allowance(group, dimension));
        return wait == NEVER ? c.remainingMillis() : wait;
    }

    /**
     * How long until every failing model and pool limit would pass if no other request came. A
     * fixed window clears only when it ends. In a sliding window the weighted previous counters
     * shrink as time passes; a pool refusal also clears once the model's saturation falls below
     * the threshold.
     */
    private static long modelClearsInMillis(Plan plan, GroupCounts[] counts, double saturation) {
        long wait = 0;
        boolean never = false;
        for (int i = 0; i < counts.length; i++) {
            CounterGroup group = plan.group(i);
            boolean model = group.kind() == GroupKind.MODEL;
            if (!model && !headlinePool(group, saturation)) {
                continue;
            }
            GroupCounts c = counts[i];
            long generousIn = model || !group.window().sliding() ? NEVER
                    : generousInMillis(plan, counts, group.enforcement().threshold());
            for (Dimension dimension : Dimension.WINDOWED) {
                if (!group.limits().limits(dimension)) {
                    continue;
                }
                long allowance = allowance(group, dimension);
                long clears = group.window().sliding() ? clearsInMillis(group, c, dimension, allowance)
                        : effective(group, c, dimension) > allowance ? c.remainingMillis() : 0;
                clears = Math.min(generousIn, clears);
                never |= clears == NEVER;
                wait = clears == NEVER ? wait : Math.max(wait, clears);
            }
        }
        return never ? counts[plan.modelIndex()].remainingMillis() : wait;
    }

    /** How long until every model group's saturation falls below the threshold ({@link #NEVER} if it cannot). */
    private static long generousInMillis(Plan plan, GroupCounts[] counts, double threshold) {
        long wait = 0;
        for (int i = 0; i < counts.length; i++) {
            CounterGroup model = plan.group(i);
            if (model.kind() != GroupKind.MODEL) {
                continue;
            }
            for (Dimension dimension : Dimension.WINDOWED) {
                if (model.limits().limits(dimension)) {
                    wait = Math.max(wait, clearsInMillis(model, counts[i], dimension,
                            belowThreshold(threshold, model.limits().of(dimension))));
                }
            }
        }
        return wait;
    }

    private static long clearsInMillis(CounterGroup group, GroupCounts c, Dimension dimension, long allowance) {
        return clearsInMillis(allowance, c.current(dimension), c.previous(dimension), c.remainingMillis(),
                group.window().millis());
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
