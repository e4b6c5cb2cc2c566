package dev.llmratelimit.budget;

import dev.llmratelimit.policy.PolicyException;

import java.util.HashMap;
import java.util.Map;

/**
 * The budgets one scope identity (or a scope kind's defaults) sets, in micro-dollars per period;
 * {@link #NOT_SET} where it sets none.
 *
 * @param budget   the hard budget of all the scope's spend
 * @param soft     the soft budget: warned about, never refused
 * @param perModel hard budgets of the spend on one model inside the scope
 */
public record ScopeBudget(long budget, long soft, Map<String, Long> perModel) {

    public static final long NOT_SET = -1;
    public static final ScopeBudget NONE = new ScopeBudget(NOT_SET, NOT_SET, Map.of());

    public static final String BUDGET = "budget";
    public static final String SOFT_BUDGET = "soft-budget";
    public static final String BUDGETS = "budgets";

    public ScopeBudget {
        perModel = Map.copyOf(perModel);
    }

    /** Whether {@code setting} (the segments after the scope's name) is a budget setting: {@code budget}, {@code soft-budget}, {@code budgets.<model>}. */
    public static boolean isBudgetSetting(java.util.List<String> setting) {
        return setting.size() == 1 ? setting.get(0).equals(BUDGET) || setting.get(0).equals(SOFT_BUDGET)
                : setting.size() == 2 && setting.get(0).equals(BUDGETS) && !setting.get(1).isEmpty();
    }

    /** This budget with one setting ({@link #isBudgetSetting}) set from configuration. */
    ScopeBudget with(java.util.List<String> setting, String property, String value) {
        long micros = Micros.parseUsd(property, value);
        if (setting.size() == 2) {
            Map<String, Long> models = new HashMap<>(perModel);
            models.put(setting.get(1), micros);
            return new ScopeBudget(budget, soft, models);
        }
        if (setting.get(0).equals(BUDGET)) {
            return new ScopeBudget(micros, soft, perModel);
        }
        return new ScopeBudget(budget, micros, perModel);
    }

    /** Each budget this one does not set comes from {@code defaults}. */
    ScopeBudget orElse(ScopeBudget defaults) {
        if (defaults == NONE) {
            return this;
        }
        Map<String, Long> models = perModel;
        if (!defaults.perModel.isEmpty()) {
            models = new HashMap<>(defaults.perModel);
            models.putAll(perModel);
        }
        return new ScopeBudget(budget != NOT_SET ? budget : defaults.budget, soft != NOT_SET ? soft : defaults.soft, models);
    }

    static void requireSetting(String property, String value, java.util.List<String> setting) {
        if (!isBudgetSetting(setting)) {
            throw new PolicyException(property, value, "expected budget, soft-budget or budgets.<model>");
        }
    }
}
