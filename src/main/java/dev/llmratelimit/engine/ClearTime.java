package dev.llmratelimit.engine;

/**
 * When a refusal clears if no other request came: what {@code retry-after} and the refusal's
 * reset say. A fixed window clears when it ends; in a sliding window the weighted previous counts
 * shrink as time passes.
 */
final class ClearTime {

    private static final long NEVER = Long.MAX_VALUE;

    private ClearTime() {
    }

    /**
     * How long until a refusal by one (non-model) group clears: the rest of its window or period;
     * in a sliding window possibly sooner; a parallel slot is retried after 1 s.
     */
    static long groupClearsInMillis(CounterGroup group, GroupCounts c, Dimension dimension) {
        if (dimension == Dimension.PARALLEL_REQUESTS) {
            return 0;
        }
        if (!group.window().sliding() || !dimension.isWindowed()) {
            return c.remainingMillis();
        }
        long wait = clearsInMillis(group, c, dimension, PlanRule.allowance(group, dimension));
        return wait == NEVER ? c.remainingMillis() : wait;
    }

    /**
     * How long until every failing model and pool limit would pass if no other request came. A
     * fixed window clears only when it ends. In a sliding window the weighted previous counters
     * shrink as time passes; a pool refusal also clears once the model's saturation falls below
     * the threshold.
     */
    static long modelClearsInMillis(Plan plan, GroupCounts[] counts, double saturation) {
        long wait = 0;
        boolean never = false;
        for (int i = 0; i < counts.length; i++) {
            CounterGroup group = plan.group(i);
            boolean model = group.kind() == GroupKind.MODEL;
            if (!model && !VerdictFigures.headlinePool(group, saturation)) {
                continue;
            }
            GroupCounts c = counts[i];
            long generousIn = model || !group.window().sliding() ? NEVER
                    : generousInMillis(plan, counts, group.enforcement().threshold());
            for (Dimension dimension : Dimension.WINDOWED) {
                if (!group.limits().limits(dimension)) {
                    continue;
                }
                long allowance = PlanRule.allowance(group, dimension);
                long clears = group.window().sliding() ? clearsInMillis(group, c, dimension, allowance)
                        : PlanRule.effective(group, c, dimension) > allowance ? c.remainingMillis() : 0;
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
