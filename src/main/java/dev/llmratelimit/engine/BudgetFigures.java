package dev.llmratelimit.engine;

/**
 * The budget figures of an admitted verdict, for the {@code x-ratelimit-*-budget} headers: the
 * tightest enforced budget (after this request's worst case) and the first soft budget reached.
 *
 * @param limitMicros     the tightest budget, -1 when no budget is enforced
 * @param remainingMicros what is left of it after this request's reservation, at least 0
 * @param softReached     the plan index of a soft (tracked) budget reached, -1 for none
 * @param softHeldMicros  what that soft budget's counter holds with this request
 */
public record BudgetFigures(long limitMicros, long remainingMicros, int softReached, long softHeldMicros) {

    public static final BudgetFigures NONE = new BudgetFigures(-1, -1, -1, 0);

    public boolean hasBudget() {
        return limitMicros >= 0;
    }

    /** The figures of the budget groups of {@code plan} as {@code counts} show them before the request. */
    static BudgetFigures of(Plan plan, GroupCounts[] counts) {
        if (!plan.groups().hasBudgets()) {
            return NONE;
        }
        long limit = -1;
        long remaining = -1;
        int soft = -1;
        long softHeld = 0;
        for (int i = 0; i < counts.length; i++) {
            CounterGroup group = plan.group(i);
            if (group.kind() != GroupKind.BUDGET || !group.limits().limitsMoney()) {
                continue;
            }
            long held = Saturating.add(counts[i].heldMicros(), group.increments().micros());
            if (group.enforcement().mode() == Enforcement.Mode.TRACKED) {
                if (soft < 0 && held >= group.limits().micros()) {
                    soft = i;
                    softHeld = held;
                }
                continue;
            }
            long left = Math.max(0, group.limits().micros() - held);
            if (limit < 0 || left < remaining) {
                limit = group.limits().micros();
                remaining = left;
            }
        }
        return limit < 0 && soft < 0 ? NONE : new BudgetFigures(limit, remaining, soft, softHeld);
    }
}
