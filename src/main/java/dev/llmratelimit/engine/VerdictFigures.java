package dev.llmratelimit.engine;

/**
 * A verdict assembled from a decision already made: the figures the headers show, the
 * saturation's mode and when a refusal clears ({@link ClearTime}). No rule is applied here.
 */
public final class VerdictFigures {

    private VerdictFigures() {
    }

    /**
     * @param refusal the first limit that failed ({@code null}: admitted), its reset not yet known
     */
    public static Verdict of(Plan plan, GroupCounts[] counts, double saturation, Refusal refusal) {
        return refusal == null ? admitted(plan, counts, saturation) : refused(plan, counts, refusal, saturation);
    }

    private static Verdict refused(Plan plan, GroupCounts[] counts, Refusal found, double saturation) {
        boolean modelOrPool = found.modelLimit() != null;
        long clears = modelOrPool ? ClearTime.modelClearsInMillis(plan, counts, saturation)
                : ClearTime.groupClearsInMillis(found.group(), counts[found.index()], found.dimension());
        Refusal refusal = found.at(found.index(), clears);
        boolean strict = plan.groups().strictAt(saturation);
        BudgetFigures budget = BudgetFigures.of(plan, counts);
        long[] limits = Verdict.noFigures();
        long[] remaining = Verdict.noFigures();
        if (modelOrPool) {
            limits[found.dimension().index()] = found.limit();
            remaining[found.dimension().index()] = refusal.remaining();
        }
        return new Verdict(refusal, strict, saturation, limits, remaining, clears, budget, plan.sharing());
    }

    /** A pool held to its share at this saturation. */
    static boolean headlinePool(CounterGroup group, double saturation) {
        return group.kind() == GroupKind.POOL && group.enforcement().mode() == Enforcement.Mode.WHEN_SATURATED
                && group.enforcement().enforcedAt(saturation);
    }

    /**
     * The headers' figures: per dimension the tightest of the model's limits and an enforced pool's,
     * and, when the model has windows of several lengths, when the window of each one shown ends.
     */
    private static Verdict admitted(Plan plan, GroupCounts[] counts, double saturation) {
        int model = plan.modelIndex();
        int[] modelGroups = plan.groups().modelGroups();
        long[] limits = Verdict.noFigures();
        long[] remaining = Verdict.noFigures();
        long[] resets = modelGroups.length > 1 ? Verdict.noFigures() : null;
        boolean strict = plan.groups().strictAt(saturation);
        if (strict && model >= 0) {   // in plan order: of two limits left alike, the later one shows
            for (int i = 0; i < counts.length; i++) {
                CounterGroup group = plan.group(i);
                if (group.kind() == GroupKind.MODEL || headlinePool(group, saturation)) {
                    tightest(group, counts[i], limits, remaining, resets);
                }
            }
        } else {
            for (int i : modelGroups) {
                tightest(plan.group(i), counts[i], limits, remaining, resets);
            }
        }
        long reset = model < 0 ? firstRemaining(counts) : counts[model].remainingMillis();
        return new Verdict(null, strict, saturation, limits, remaining, reset, BudgetFigures.of(plan, counts),
                plan.sharing(), resets);
    }

    /**
     * Per dimension the group limits, its limit and what is left of it where that is the tightest so
     * far, and when its window ends ({@code resets}, if kept).
     */
    private static void tightest(CounterGroup group, GroupCounts counts, long[] limits, long[] remaining,
                                 long[] resets) {
        Limits groupLimits = group.limits();
        for (int k = 0; k < groupLimits.limitedCount(); k++) {
            int d = groupLimits.limitedIndex(k);
            long limit = groupLimits.limitedValue(k);
            long used = PlanRule.effective(group.window(), counts, d);
            long left = d == Dimension.REQUESTS.index() ? limit - used - 1
                    : Math.max(0, limit - used - group.increments().ofIndex(d));
            if (limits[d] < 0 || left <= remaining[d]) {
                boolean tie = limits[d] >= 0 && left == remaining[d];
                limits[d] = limit;
                remaining[d] = left;
                if (resets != null) {      // of two limits left alike, the one whose window ends later binds longer
                    resets[d] = tie ? Math.max(resets[d], counts.remainingMillis()) : counts.remainingMillis();
                }
            }
        }
    }

    private static long firstRemaining(GroupCounts[] counts) {
        for (GroupCounts c : counts) {
            if (c.remainingMillis() > 0) {
                return c.remainingMillis();
            }
        }
        return 0;
    }
}
