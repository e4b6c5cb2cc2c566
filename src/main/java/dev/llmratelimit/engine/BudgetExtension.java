package dev.llmratelimit.engine;

import dev.llmratelimit.budget.BudgetAdmission;
import dev.llmratelimit.budget.BudgetIdentity;
import dev.llmratelimit.budget.BudgetLine;
import dev.llmratelimit.budget.BudgetPolicy;
import dev.llmratelimit.budget.BudgetScope;
import dev.llmratelimit.budget.ModelPrice;
import dev.llmratelimit.usage.Usage;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Budgets (docs/budgets.md) as counter groups of the one admission plan: one {@link GroupKind#BUDGET}
 * group per budget that applies to the request's identity and model (key, user, team; a scope's
 * whole spend and its per-model budget), for every model, configured or not. A hard budget is
 * enforced; a soft one is a tracked group of its own counter that only reports. In {@code reserve}
 * admission each group adds the request's worst-case cost, settled to the actual cost after the
 * call; in {@code recorded} admission nothing is added before the call. A budget that applies to a
 * model without a price makes the request {@link Contribution#UNPRICED}: an unknown price is never free.
 * The budget groups of an identity and a model are built once per budget period and kept (at most
 * {@value #MAX_KEPT} identities and models; beyond, the cache starts over): a request adds its worst
 * case only, and stores compile the groups once.
 */
public final class BudgetExtension implements PlanExtension {

    private static final ThrottledLog UNPRICED_CHARGES = new ThrottledLog(BudgetExtension.class, System.Logger.Level.WARNING);
    /** Tells a soft budget's counter apart from the hard budget of the same scope and model. */
    public static final String SOFT = "soft:";

    static final int MAX_KEPT = 10_000;
    private static final Increments NOTHING = new Increments(0, 0, 0, false);

    private final BudgetPolicy policy;
    private final Clock clock;
    private final StartingOverCache<Spender, Budgeted> kept = new StartingOverCache<>(MAX_KEPT);

    /** Whose spend, on which model. */
    private record Spender(BudgetIdentity identity, String model) {
    }

    /**
     * The budgets of a spender in one budget period, valid from {@code from} until {@code until}:
     * their groups with nothing added ({@code null}: no budget applies) and the configured keys
     * among their subjects.
     */
    private record Budgeted(PlanGroups groups, Set<String> configuredKeys, long from, long until) {

        static final Budgeted NONE = new Budgeted(null, Set.of(), Long.MIN_VALUE, Long.MAX_VALUE);

        boolean validAt(long now) {
            return from <= now && now < until;
        }
    }

    public BudgetExtension(BudgetPolicy policy, Clock clock) {
        this.policy = policy;
        this.clock = clock;
    }

    @Override
    public Contribution contribute(AdmissionRequest request, TokenEstimate tokens) {
        Budgeted budgeted = budgetedAt(request, clock.millis());
        if (budgeted.groups() == null) {
            return Contribution.NONE;
        }
        ModelPrice own = policy.prices().priceOf(request.model());
        ModelPrice price = own != null ? own : policy.prices().unpriced();
        if (price == null) {
            return Contribution.UNPRICED;
        }
        if (own == null) {
            UNPRICED_CHARGES.log("A budgeted request for a model without a price is charged the budget.unpriced price", null);
        }
        long worstCase = policy.admission() == BudgetAdmission.RESERVE ? worstCase(price, request, tokens) : 0;
        return new Contribution(adding(budgeted.groups(), worstCase), new BudgetCharge(price, budgeted.configuredKeys()));
    }

    /** The budgets of the request's identity and model in the period {@code now} lies in. */
    private Budgeted budgetedAt(AdmissionRequest request, long now) {
        Spender spender = new Spender(request.identity(), request.model());
        Budgeted known = kept.get(spender);
        if (known != null && known.validAt(now)) {
            return known;
        }
        return kept.keep(spender, budgeted(policy.linesFor(request.identity(), request.model(), now)));
    }

    /** Identities and models kept, for tests of the bound. */
    int kept() {
        return kept.size();
    }

    private Budgeted budgeted(List<BudgetLine> lines) {
        if (lines.isEmpty()) {
            return Budgeted.NONE;
        }
        List<CounterGroup> groups = new ArrayList<>(lines.size() + 1);
        Set<String> configuredKeys = new HashSet<>(1);
        for (BudgetLine line : lines) {
            GroupWindow period = GroupWindow.period(Long.toString(line.periodStart()), line.periodEnd());
            String id = groupId(line);
            if (line.hasLimit()) {
                groups.add(new CounterGroup(GroupKind.BUDGET, id, line.model(), period,
                        new Limits(Limits.NONE, Limits.NONE, Limits.NONE, line.limit()), Enforcement.ALWAYS, NOTHING));
            }
            if (line.soft() >= 0) {
                groups.add(new CounterGroup(GroupKind.BUDGET, SOFT + id, line.model(), period,
                        new Limits(Limits.NONE, Limits.NONE, Limits.NONE, line.soft()), Enforcement.TRACKED, NOTHING));
            }
            if (line.scope() == BudgetScope.KEY && policy.isConfigured(BudgetScope.KEY, line.subject())) {
                configuredKeys.add(line.subject());
            }
        }
        BudgetLine first = lines.get(0);
        return new Budgeted(PlanGroups.of(groups), Set.copyOf(configuredKeys),
                first.periodStart(), first.periodEnd());
    }

    /** The budget groups each adding the worst case (none in {@code recorded} admission): the same counters. */
    private static PlanGroups adding(PlanGroups groups, long worstCase) {
        if (worstCase == 0) {
            return groups;
        }
        Increments add = new Increments(0, 0, worstCase, false);
        CounterGroup[] adding = new CounterGroup[groups.size()];
        for (int i = 0; i < adding.length; i++) {
            adding[i] = groups.get(i).withIncrements(add);
        }
        return groups.replacing(adding);
    }

    /**
     * The counter group that holds a budget's spend, as a request's plan names it (its hard budget's,
     * else its soft budget's), with nothing to add: for reading it.
     */
    public static CounterGroup counterOf(BudgetLine line) {
        GroupWindow period = GroupWindow.period(Long.toString(line.periodStart()), line.periodEnd());
        return new CounterGroup(GroupKind.BUDGET, line.hasLimit() ? groupId(line) : SOFT + groupId(line), line.model(),
                period, new Limits(Limits.NONE, Limits.NONE, Limits.NONE, line.hasLimit() ? line.limit() : line.soft()),
                line.hasLimit() ? Enforcement.ALWAYS : Enforcement.TRACKED, new Increments(0, 0, 0, false));
    }

    /** The scope a budget group of this extension belongs to (its id names it: see {@link #groupId}). */
    public static BudgetScope scopeOf(CounterGroup budgetGroup) {
        char code = unsoftened(budgetGroup).charAt(0);
        for (BudgetScope scope : BudgetScope.values()) {
            if (scope.code() == code) {
                return scope;
            }
        }
        throw new IllegalArgumentException("Not a budget group: " + budgetGroup);
    }

    /** The key, user or team a budget group counts for. */
    public static String subjectOf(CounterGroup budgetGroup) {
        return unsoftened(budgetGroup).substring(2);
    }

    /** Whether the group only reports (a soft budget's). */
    public static boolean isSoft(CounterGroup budgetGroup) {
        return budgetGroup.id().startsWith(SOFT);
    }

    private static String unsoftened(CounterGroup budgetGroup) {
        String id = budgetGroup.id();
        return id.startsWith(SOFT) ? id.substring(SOFT.length()) : id;
    }

    /** {@code <scope code>:<subject>}: the kind is BUDGET for every scope, so the id names the scope. */
    static String groupId(BudgetLine line) {
        return line.scope().code() + ":" + line.subject();
    }

    /**
     * The prompt at the input price plus the most output the request may produce ({@code max_tokens}
     * of every choice, else the price's {@code max-output-tokens}, else {@code budget.max-output-tokens})
     * at the output price; never more than the stores count.
     */
    private long worstCase(ModelPrice price, AdmissionRequest request, TokenEstimate tokens) {
        long perChoice = request.maxOutputTokens() >= 0 ? request.maxOutputTokens()
                : price.maxOutputTokens() > 0 ? price.maxOutputTokens() : policy.defaultMaxOutputTokens();
        long prompt = price.input() > 0 ? Math.max(0, tokens.promptTokens()) : 0;
        return Saturating.clamp(price.costMicros(prompt, 0, 0, Saturating.multiply(perChoice, request.n())));
    }

    /**
     * The micro-dollars the usage costs at the model's prices: uncached prompt, cached prompt,
     * cache-creation tokens (part of the prompt tokens, Anthropic; those for the 1-hour cache at their
     * own price) and completion.
     */
    static long cost(ModelPrice price, Usage usage) {
        long prompt = Math.max(0, usage.promptTokens());
        long cached = Math.min(Math.max(0, usage.cachedPromptTokens()), prompt);
        long written = Math.min(Math.max(0, usage.cacheCreationTokens()), prompt - cached);
        long writtenFor1h = Math.min(usage.cacheCreation1hTokens(), written);
        return Saturating.clamp(price.costMicros(prompt - cached - written, cached, written - writtenFor1h, writtenFor1h,
                usage.completionTokens()));
    }
}
