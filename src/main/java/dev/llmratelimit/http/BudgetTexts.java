package dev.llmratelimit.http;

import dev.llmratelimit.budget.BudgetScope;
import dev.llmratelimit.budget.Micros;
import dev.llmratelimit.engine.BudgetExtension;
import dev.llmratelimit.engine.BudgetFigures;
import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.Refusal;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.policy.KeyHash;

import java.time.Instant;
import java.util.function.BiConsumer;

/** The budget answers of SPEC section 11: the 429 and 400 messages and the {@code x-ratelimit-*-budget} headers. */
public final class BudgetTexts {

    public static final String LIMIT = "x-ratelimit-limit-budget";
    public static final String REMAINING = "x-ratelimit-remaining-budget";
    public static final String SOFT_WARNING = "x-ratelimit-budget-warning";
    public static final String BUDGET_EXCEEDED = "budget_exceeded";
    public static final String PRICE_UNKNOWN = "model_price_unknown";

    private BudgetTexts() {
    }

    /**
     * {@code Budget exceeded for team team-a: spent $10.0021 of $10.0000 in the period ending
     * 2027-01-01T00:00:00Z}: spent is what settled calls cost; what calls in flight hold is added as
     * {@code ($0.0150 reserved by calls in flight)}, so a refusal with little spent explains itself.
     */
    public static String exceeded(Refusal refusal) {
        CounterGroup group = refusal.group();
        String text = "Budget exceeded for " + label(group) + ": spent $" + Micros.usd(refusal.current())
                + " of $" + Micros.usd(refusal.limit()) + " in the period ending "
                + Instant.ofEpochMilli(group.window().periodEnd());
        return refusal.reserved() > 0 ? text + " ($" + Micros.usd(refusal.reserved()) + " reserved by calls in flight)" : text;
    }

    public static String unpriced(String model) {
        return "Model " + model + " has no price, so the budget that applies to this request cannot be enforced;"
                + " the request is refused rather than treated as free";
    }

    /** {@code team team-a}, {@code key sha256:0123456789ab}, {@code user bob on model gpt-4o}. */
    static String label(CounterGroup group) {
        BudgetScope scope = BudgetExtension.scopeOf(group);
        String subject = BudgetExtension.subjectOf(group);
        String who = scope.label() + " " + (scope == BudgetScope.KEY ? KeyHash.shortHash(subject) : subject);
        return group.member().isEmpty() ? who : who + " on model " + group.member();
    }

    /** {@code team-budget} and the like, for the shadow-decision header. */
    static String limitName(CounterGroup group) {
        return BudgetExtension.scopeOf(group).label() + "-budget";
    }

    /** The tightest hard budget's limit and what is left of it (USD), and a warning once a soft budget is reached. */
    public static void headers(Plan plan, Verdict verdict, BiConsumer<String, String> header) {
        BudgetFigures budget = verdict.budget();
        if (budget.hasBudget()) {
            header.accept(LIMIT, Micros.usd(budget.limitMicros()));
            header.accept(REMAINING, Micros.usd(budget.remainingMicros()));
        }
        if (budget.softReached() >= 0) {
            header.accept(SOFT_WARNING, softReached(plan, budget));
        }
    }

    /** {@code soft budget reached for team team-a: $8.0100 of $8.0000}. */
    public static String softReached(Plan plan, BudgetFigures budget) {
        CounterGroup soft = plan.group(budget.softReached());
        return "soft budget reached for " + label(soft) + ": $" + Micros.usd(budget.softHeldMicros()) + " of $"
                + Micros.usd(soft.limits().micros());
    }
}
