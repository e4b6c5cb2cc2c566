package dev.llmratelimit.engine;

import java.util.List;

/**
 * The decision of docs/admission.md as a pure function of the counters read: which limits are
 * enforced and which is the first that fails. The memory store calls it under its locks; the Redis
 * store runs the same rule in Lua ({@code admit.lua}) and only assembles the script's answer into a
 * verdict ({@link VerdictFigures}, whose retry-after comes from {@link ClearTime}).
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

    /** Products up to 2^53 are exact in a double; above, the scripts and this class round alike. */
    private static final long EXACT = 1L << 53;
    private static final int REQUESTS = Dimension.REQUESTS.index();

    private PlanRule() {
    }

    /** @param counts one per group of the plan, in its order */
    public static Verdict decide(Plan plan, GroupCounts[] counts) {
        double saturation = saturation(plan, counts);
        return VerdictFigures.of(plan, counts, saturation, firstRefusal(plan, counts, saturation));
    }

    /** The first enforced limit of the plan that fails, in plan order; {@code null} when all pass. */
    static Refusal firstRefusal(Plan plan, GroupCounts[] counts, double saturation) {
        List<CounterGroup> groups = plan.groups();
        for (int i = 0; i < groups.size(); i++) {
            CounterGroup group = groups.get(i);
            if (group.enforcement().enforcedAt(saturation)) {
                Dimension failed = failing(group, counts[i]);
                if (failed != null) {
                    return refusal(i, group, counts[i], failed);
                }
            }
        }
        return null;
    }

    /** The first dimension of the group whose limit fails, {@code null} when all pass. */
    private static Dimension failing(CounterGroup group, GroupCounts c) {
        Limits limits = group.limits();
        for (int k = 0; k < limits.limitedCount(); k++) {
            int index = limits.limitedIndex(k);
            if (effective(group.window(), c, index) > allowance(group, index, limits.limitedValue(k))) {
                return limits.limited(k);
            }
        }
        if (limits.limitsParallel() && c.inFlight() > limits.parallel() - 1) {
            return Dimension.PARALLEL_REQUESTS;
        }
        if (limits.limitsMoney() && c.heldMicros() > moneyAllowance(limits.micros(), group.increments().micros())) {
            return Dimension.MONEY;
        }
        return null;
    }

    /**
     * The refusal of group {@code index} by a dimension, with what its counter held (the reset is
     * set once the whole plan is known).
     */
    public static Refusal refusal(int index, CounterGroup group, GroupCounts c, Dimension dimension) {
        return switch (dimension) {
            case PARALLEL_REQUESTS -> new Refusal(index, group, dimension, group.limits().parallel(), c.inFlight(), 0);
            case MONEY -> new Refusal(index, group, dimension, group.limits().micros(), c.micros(), 0, c.reservedMicros());
            default -> new Refusal(index, group, dimension, group.limits().of(dimension), effective(group, c, dimension), 0);
        };
    }

    /** The largest effective count of a windowed dimension that still admits the group's increments. */
    static long allowance(CounterGroup group, Dimension dimension) {
        return allowance(group, dimension.index(), group.limits().of(dimension));
    }

    /** The same for the windowed dimension at {@code index}, whose limit is {@code limit}. */
    private static long allowance(CounterGroup group, int index, long limit) {
        return index == REQUESTS ? limit - 1 : allowance(limit, group.increments().ofIndex(index));
    }

    static long effective(CounterGroup group, GroupCounts c, Dimension dimension) {
        return effective(group.window(), c, dimension.index());
    }

    /** The effective count of the windowed dimension at {@code index}. */
    static long effective(GroupWindow window, GroupCounts c, int index) {
        long current = c.current()[index];
        return window.sliding() ? effective(window, current, c.previous()[index], c.remainingMillis()) : current;
    }

    /** The highest saturation over every model group of the plan (one per window length); 0 without one. */
    public static double saturation(Plan plan, GroupCounts[] counts) {
        double saturation = 0.0;
        for (int i : plan.groups().modelGroups()) {
            saturation = Math.max(saturation, saturation(plan.group(i), counts[i]));
        }
        return saturation;
    }

    /** {@code max(current / limit)} over the windowed dimensions the model group limits. */
    public static double saturation(CounterGroup model, GroupCounts c) {
        Limits limits = model.limits();
        double saturation = 0.0;
        for (int k = 0; k < limits.limitedCount(); k++) {
            long limit = limits.limitedValue(k);
            if (limit > 0) {
                saturation = Math.max(saturation, (double) effective(model.window(), c, limits.limitedIndex(k)) / limit);
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
}
