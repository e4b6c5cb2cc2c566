package dev.llmratelimit.store;

import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.BudgetFigures;
import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.GroupKind;
import dev.llmratelimit.engine.ModelCounters;
import dev.llmratelimit.engine.ModelGroups;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.PlanGroups;
import dev.llmratelimit.engine.Refusal;
import dev.llmratelimit.engine.Settlement;
import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.engine.ThrottledLog;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.policy.StoreFailureMode;

import java.util.ArrayList;
import java.util.List;

/**
 * One admission over two stores: a plan's {@link GroupKind#BUDGET} groups go to the budget store
 * (the JDBC store of record), every other group to the counter store (memory or Redis). Still all
 * or nothing: the counter store decides first; if the budget store then refuses, or fails while
 * {@code on-store-failure=fail-closed}, the counter store's part is cancelled, once. With
 * {@code fail-open} or {@code local} a failed budget store lets the request through on its counter
 * limits alone,
 * and its settlement charges the budget once the store answers again (the budget store must queue
 * what it could not apply: a {@link CompensatingAdmissionStore}). Settling settles both parts.
 * Each store adds its own phases: a database one transaction before the call and one after it.
 */
public final class SplitAdmissionStore implements AdmissionStore {

    private static final ThrottledLog FAILURES = new ThrottledLog(SplitAdmissionStore.class, System.Logger.Level.WARNING);

    private final AdmissionStore counters;
    private final AdmissionStore budgets;
    private final StoreFailureMode onBudgetFailure;

    public SplitAdmissionStore(AdmissionStore counters, AdmissionStore budgets, StoreFailureMode onBudgetFailure) {
        this.counters = counters;
        this.budgets = budgets;
        this.onBudgetFailure = onBudgetFailure;
    }

    /** A plan's groups of one store, with their indexes in the whole plan. */
    private record Part(Plan plan, int[] indexes) {

        static Part of(Plan plan, boolean budgets) {
            PlanGroups joined = plan.groups();
            if (joined.head() != null && !joined.head().hasBudgets() && onlyBudgets(joined.tail())) {
                return ofJoined(plan, budgets);
            }
            List<CounterGroup> groups = new ArrayList<>(plan.groups().size());
            int[] indexes = new int[plan.groups().size()];
            for (int i = 0; i < plan.groups().size(); i++) {
                CounterGroup group = plan.group(i);
                if ((group.kind() == GroupKind.BUDGET) == budgets) {
                    indexes[groups.size()] = i;
                    groups.add(group);
                }
            }
            return groups.isEmpty() ? null : new Part(
                    plan.part(budgets ? 1 : 0, groups),
                    java.util.Arrays.copyOf(indexes, groups.size()));
        }

        /**
         * A part of a plan joined from its counter groups and then its budgets: one of the two lists
         * as it is, so what its store compiled for it is used again.
         */
        private static Part ofJoined(Plan plan, boolean budgets) {
            PlanGroups head = plan.groups().head();
            PlanGroups groups = budgets ? plan.groups().tail() : head;
            int from = budgets ? head.size() : 0;
            int[] indexes = new int[groups.size()];
            for (int i = 0; i < indexes.length; i++) {
                indexes[i] = from + i;
            }
            return new Part(plan.part(budgets ? 1 : 0, groups), indexes);
        }

        private static boolean onlyBudgets(List<CounterGroup> groups) {
            for (CounterGroup group : groups) {
                if (group.kind() != GroupKind.BUDGET) {
                    return false;
                }
            }
            return true;
        }
    }

    @Override
    public Verdict decide(Plan plan) {
        Part budgetPart = Part.of(plan, true);
        if (budgetPart == null) {
            return counters.decide(plan);
        }
        Part counterPart = Part.of(plan, false);
        Verdict counted = null;
        if (counterPart != null) {
            counted = counters.decide(counterPart.plan());
            if (!counted.admitted()) {
                return remapped(counterPart, counted, counted.budget());
            }
        }
        Verdict budgeted;
        try {
            budgeted = budgets.decide(budgetPart.plan());
        } catch (StoreUnavailableException e) {
            if (onBudgetFailure != StoreFailureMode.FAIL_CLOSED && counted != null) {
                FAILURES.log(e.getMessage() + "; request admitted on its rate limits alone (" + onBudgetFailure
                        + "); its cost is charged once the budget store answers again", e);
                return remapped(counterPart, counted, BudgetFigures.NONE);
            }
            cancel(counterPart);
            cancel(budgets, budgetPart);
            throw e;
        } catch (RuntimeException e) {
            cancel(counterPart);
            throw e;
        }
        if (!budgeted.admitted()) {
            cancel(counterPart);
        }
        BudgetFigures figures = remapped(budgetPart, budgeted.budget());
        if (counted == null) {
            return remapped(budgetPart, budgeted, figures);
        }
        if (!budgeted.admitted()) {
            Refusal refusal = budgeted.refusal();
            return new Verdict(refusal.at(budgetPart.indexes()[refusal.index()], refusal.resetMillis()), counted.strict(),
                    counted.saturation(), Verdict.noFigures(), Verdict.noFigures(), refusal.resetMillis(), figures,
                    counted.sharing());
        }
        return remapped(counterPart, counted, figures);
    }

    private void cancel(Part counterPart) {
        if (counterPart != null) {
            cancel(counters, counterPart);
        }
    }

    private static void cancel(AdmissionStore store, Part part) {
        try {
            store.settle(part.plan(), Settlement.CANCEL);
        } catch (RuntimeException e) {
            FAILURES.log("Could not cancel the part of a decision another store refused; it ends with its lease", e);
        }
    }

    /** {@code verdict} of {@code part} with its refusal's index in the whole plan and the given budget figures. */
    private static Verdict remapped(Part part, Verdict verdict, BudgetFigures figures) {
        return verdict.remapped(part.indexes(), figures);
    }

    private static BudgetFigures remapped(Part part, BudgetFigures figures) {
        return figures.softReached() < 0 ? figures : new BudgetFigures(figures.limitMicros(), figures.remainingMicros(),
                part.indexes()[figures.softReached()], figures.softHeldMicros());
    }

    @Override
    public void settle(Plan plan, Settlement settlement) {
        Part budgetPart = Part.of(plan, true);
        if (budgetPart == null) {
            counters.settle(plan, settlement);
            return;
        }
        Part counterPart = Part.of(plan, false);
        StoreUnavailableException failure = null;
        if (counterPart != null) {
            try {
                counters.settle(counterPart.plan(), settlement);
            } catch (StoreUnavailableException e) {
                failure = e;                                  // the budget is settled all the same
            }
        }
        budgets.settle(budgetPart.plan(), settlement);
        if (failure != null) {
            throw failure;
        }
    }

    /** Model counters live in the counter store: the status page and gauges read them there. */
    @Override
    public ModelCounters snapshot(ModelGroups model) {
        return counters.snapshot(model);
    }

    /** Budgets live in the budget store. */
    @Override
    public long[][] budgets(List<CounterGroup> groups) {
        return budgets.budgets(groups);
    }

    @Override
    public boolean outlivesThisJvm() {
        return counters.outlivesThisJvm() || budgets.outlivesThisJvm();
    }

    @Override
    public void close() {
        try {
            budgets.close();
        } finally {
            counters.close();
        }
    }
}
