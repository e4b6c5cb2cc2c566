package dev.llmratelimit.http;

import dev.llmratelimit.budget.BudgetScope;
import dev.llmratelimit.budget.Micros;
import dev.llmratelimit.engine.BudgetCharge;
import dev.llmratelimit.engine.BudgetExtension;
import dev.llmratelimit.engine.BudgetFigures;
import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.Refusal;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.policy.KeyHash;

import java.time.Instant;
import java.util.function.BiConsumer;

/** The budget answers of docs/budgets.md: the 429 and 400 messages and the {@code x-ratelimit-*-budget} headers. */
public final class BudgetTexts {

    public static final String LIMIT = "x-ratelimit-limit-budget";
    public static final String REMAINING = "x-ratelimit-remaining-budget";
    public static final String SOFT_WARNING = "x-ratelimit-budget-warning";
    public static final String BUDGET_EXCEEDED = "budget_exceeded";
    public static final String PRICE_UNKNOWN = "model_price_unknown";

    private BudgetTexts() {
    }

    /**
     * Why a budget refused. When spending is what exhausted it: {@code Budget exceeded for team
     * team-a: spent $10.0021 of $10.0000 in the period ending 2027-01-01T00:00:00Z}, with {@code
     * ($0.0150 reserved by calls in flight)} when calls still running hold part of it. When the
     * budget still has money left but not this call's worst case (its prompt and all the output it
     * may produce, reserved before the call): what the worst case was, what is left, and that a lower
     * {@code max_tokens} lowers it.
     */
    public static String exceeded(Plan plan, Refusal refusal) {
        CounterGroup group = refusal.group();
        String who = label(group, plan);
        String period = " in the period ending " + Instant.ofEpochMilli(group.window().periodEnd());
        long worstCase = group.increments().micros();
        if (worstCase > 0 && refusal.remaining() > 0) {
            return "Budget exceeded for " + who + ": this call may cost up to $" + Micros.usd(worstCase)
                    + " (its prompt and the most output it may produce), more than the $" + Micros.usd(refusal.remaining())
                    + " left of $" + Micros.usd(refusal.limit()) + period + " (spent $" + Micros.usd(refusal.current())
                    + reservedText(refusal) + "). Send max_tokens, or a lower one, to lower the call's worst case";
        }
        String text = "Budget exceeded for " + who + ": spent $" + Micros.usd(refusal.current())
                + " of $" + Micros.usd(refusal.limit()) + period;
        return refusal.reserved() > 0 ? text + " ($" + Micros.usd(refusal.reserved()) + " reserved by calls in flight)" : text;
    }

    private static String reservedText(Refusal refusal) {
        return refusal.reserved() > 0 ? ", $" + Micros.usd(refusal.reserved()) + " reserved by calls in flight" : "";
    }

    public static String unpriced(String model) {
        return "Model " + model + " has no price, so the budget that applies to this request cannot be enforced;"
                + " the request is refused rather than treated as free";
    }

    /**
     * {@code team team-a}, {@code key bob} (a key with a budget of its own configured), {@code key
     * sha256:0123456789ab} (any other key: its name may be the API key), {@code user bob on model gpt-4o}.
     */
    static String label(CounterGroup group, Plan plan) {
        BudgetScope scope = BudgetExtension.scopeOf(group);
        String subject = BudgetExtension.subjectOf(group);
        boolean named = scope != BudgetScope.KEY
                || plan.cost() instanceof BudgetCharge charge && charge.configuredKeys().contains(subject);
        String who = scope.label() + " " + (named ? subject : KeyHash.shortHash(subject));
        return group.member().isEmpty() ? who : who + " on model " + group.member();
    }

    /** {@code team-budget} and the like, for the shadow-decision header. */
    static String limitName(CounterGroup group) {
        return BudgetExtension.scopeOf(group).label() + "-budget";
    }

    /**
     * The tightest hard budget's limit and what is left of it (USD), and a warning once a soft budget
     * is reached. A budget's refusal shows that budget and what is left of it now (the refused call
     * reserved nothing).
     */
    public static void headers(Plan plan, Verdict verdict, BiConsumer<String, String> header) {
        BudgetFigures budget = verdict.budget();
        if (!verdict.admitted() && verdict.refusal().dimension() == Dimension.MONEY) {
            header.accept(LIMIT, Micros.usd(verdict.refusal().limit()));
            header.accept(REMAINING, Micros.usd(verdict.refusal().remaining()));
        } else if (budget.hasBudget()) {
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
        return "soft budget reached for " + label(soft, plan) + ": $" + Micros.usd(budget.softHeldMicros()) + " of $"
                + Micros.usd(soft.limits().micros());
    }
}
