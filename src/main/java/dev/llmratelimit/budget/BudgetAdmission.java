package dev.llmratelimit.budget;

/** {@code budget.admission}: how a request's cost is held against its budgets before the call. */
public enum BudgetAdmission {
    /** The worst-case cost must fit what is left and is reserved until the call settles. */
    RESERVE,
    /** Admitted while the recorded spend is below the budget; nothing is reserved. */
    RECORDED
}
