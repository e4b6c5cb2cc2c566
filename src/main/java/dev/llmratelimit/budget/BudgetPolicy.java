package dev.llmratelimit.budget;

import dev.llmratelimit.policy.Durations;
import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.policy.PropertyNames;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Every configured budget (docs/budgets.md): per identity under {@code principals.<name>},
 * {@code users.<user>} and {@code teams.<team>}, defaults per scope kind under
 * {@code defaults.<key|user|team>}, the period, the admission mode, the prices and the lease of a
 * reservation that is never settled.
 */
public final class BudgetPolicy {

    public static final String BUDGET = PolicyParser.PREFIX + "budget.";
    public static final String ADMISSION = BUDGET + "admission";
    public static final String MAX_OUTPUT_TOKENS = BUDGET + "max-output-tokens";
    public static final String LEASE = PolicyParser.PREFIX + "parallel-lease";
    public static final long DEFAULT_MAX_OUTPUT_TOKENS = 4096;

    private static final String DEFAULTS = PolicyParser.PREFIX + "defaults.";

    /** No price, no budget. */
    public static final BudgetPolicy NONE = parse(Map.of());

    private final Map<BudgetScope, Map<String, ScopeBudget>> budgets;
    private final Map<BudgetScope, ScopeBudget> defaults;
    private final BudgetPeriod period;
    private final BudgetAdmission admission;
    private final PriceTable prices;
    private final long defaultMaxOutputTokens;
    private final long leaseMillis;

    private BudgetPolicy(Map<BudgetScope, Map<String, ScopeBudget>> budgets, Map<BudgetScope, ScopeBudget> defaults,
                         BudgetPeriod period, BudgetAdmission admission, PriceTable prices,
                         long defaultMaxOutputTokens, long leaseMillis) {
        this.budgets = budgets;
        this.defaults = defaults;
        this.period = period;
        this.admission = admission;
        this.prices = prices;
        this.defaultMaxOutputTokens = defaultMaxOutputTokens;
        this.leaseMillis = leaseMillis;
    }

    /** @throws PolicyException naming the property of an invalid budget, price, period or mode */
    public static BudgetPolicy parse(Map<String, String> properties) {
        Map<BudgetScope, Map<String, ScopeBudget>> budgets = new EnumMap<>(BudgetScope.class);
        Map<BudgetScope, ScopeBudget> defaults = new EnumMap<>(BudgetScope.class);
        for (BudgetScope scope : BudgetScope.values()) {
            budgets.put(scope, new HashMap<>());
            defaults.put(scope, ScopeBudget.NONE);
        }
        for (Map.Entry<String, String> entry : properties.entrySet()) {
            String property = entry.getKey();
            if (!property.startsWith(PolicyParser.PREFIX)) {
                continue;
            }
            List<String> segments = PropertyNames.segments(property.substring(PolicyParser.PREFIX.length()));
            if (segments.size() < 3) {
                continue;
            }
            List<String> setting = segments.subList(2, segments.size());
            if (segments.get(0).equals("defaults")) {
                BudgetScope scope = scopeLabelled(segments.get(1));
                if (scope != null && ScopeBudget.isBudgetSetting(setting)) {
                    defaults.put(scope, defaults.get(scope).with(setting, property, entry.getValue()));
                }
                continue;
            }
            for (BudgetScope scope : BudgetScope.values()) {
                if (scope.section().equals(segments.get(0)) && ScopeBudget.isBudgetSetting(setting)) {
                    budgets.get(scope).compute(segments.get(1), (name, old) ->
                            (old == null ? ScopeBudget.NONE : old).with(setting, property, entry.getValue()));
                }
            }
        }
        BudgetPeriod period = BudgetPeriod.parse(properties.getOrDefault(BudgetPeriod.PERIOD, "month"),
                properties.getOrDefault(BudgetPeriod.ZONE, "UTC"),
                properties.getOrDefault(BudgetPeriod.ANCHOR, "1970-01-01T00:00:00Z"));
        String leaseText = properties.getOrDefault(LEASE, "10m");
        Duration lease = Durations.parse(LEASE, leaseText);
        if (lease.toMillis() <= 0) {
            throw new PolicyException(LEASE, leaseText, "the lease must be at least 1ms");
        }
        String maxOutput = properties.get(MAX_OUTPUT_TOKENS);
        return new BudgetPolicy(budgets, defaults, period, admission(properties.getOrDefault(ADMISSION, "reserve")),
                PriceTableParser.parse(properties),
                maxOutput == null ? DEFAULT_MAX_OUTPUT_TOKENS : PriceTableParser.PriceFields.tokens(MAX_OUTPUT_TOKENS, maxOutput),
                lease.toMillis());
    }

    private static BudgetAdmission admission(String text) {
        try {
            return BudgetAdmission.valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new PolicyException(ADMISSION, text, "expected reserve or recorded");
        }
    }

    private static BudgetScope scopeLabelled(String label) {
        for (BudgetScope scope : BudgetScope.values()) {
            if (scope.label().equals(label)) {
                return scope;
            }
        }
        return null;
    }

    /** Whether any budget is configured at all; without one the budget path costs nothing. */
    public boolean isEmpty() {
        return budgets.values().stream().allMatch(Map::isEmpty) && defaults.values().stream().allMatch(d -> d == ScopeBudget.NONE);
    }

    /**
     * The budget counters a request of {@code identity} for {@code model} at {@code nowMillis} spends
     * on, in scope order key, user, team (each scope's whole spend before its per-model one); empty
     * when no budget applies.
     */
    public List<BudgetLine> linesFor(BudgetIdentity identity, String model, long nowMillis) {
        List<BudgetLine> lines = null;
        BudgetPeriod.Window window = null;
        for (BudgetScope scope : BudgetScope.values()) {
            String subject = identity.of(scope);
            if (subject == null) {
                continue;
            }
            ScopeBudget budget = budgets.get(scope).getOrDefault(subject, ScopeBudget.NONE).orElse(defaults.get(scope));
            Long perModel = budget.perModel().get(model);
            if (budget.budget() == ScopeBudget.NOT_SET && budget.soft() == ScopeBudget.NOT_SET && perModel == null) {
                continue;
            }
            if (lines == null) {
                lines = new ArrayList<>(4);
                window = period.at(nowMillis);
            }
            if (budget.budget() != ScopeBudget.NOT_SET || budget.soft() != ScopeBudget.NOT_SET) {
                lines.add(new BudgetLine(scope, subject, "", window.startMillis(), window.endMillis(),
                        budget.budget(), budget.soft()));
            }
            if (perModel != null) {
                lines.add(new BudgetLine(scope, subject, model, window.startMillis(), window.endMillis(),
                        perModel, ScopeBudget.NOT_SET));
            }
        }
        return lines == null ? List.of() : lines;
    }

    /**
     * Every budget configured for a named key, user or team, in the period {@code nowMillis} lies in:
     * scope order key, user, team, then subject, each scope's whole budget before its per-model ones.
     */
    public List<BudgetLine> configuredLines(long nowMillis) {
        List<BudgetLine> lines = new ArrayList<>();
        BudgetPeriod.Window window = period.at(nowMillis);
        for (BudgetScope scope : BudgetScope.values()) {
            for (Map.Entry<String, ScopeBudget> entry : new java.util.TreeMap<>(budgets.get(scope)).entrySet()) {
                ScopeBudget budget = entry.getValue();
                if (budget.budget() != ScopeBudget.NOT_SET || budget.soft() != ScopeBudget.NOT_SET) {
                    lines.add(new BudgetLine(scope, entry.getKey(), "", window.startMillis(), window.endMillis(),
                            budget.budget(), budget.soft()));
                }
                new java.util.TreeMap<>(budget.perModel()).forEach((model, limit) -> lines.add(new BudgetLine(scope,
                        entry.getKey(), model, window.startMillis(), window.endMillis(), limit, ScopeBudget.NOT_SET)));
            }
        }
        return lines;
    }

    /** Whether the key, user or team has a budget of its own configured (its name is then shown as configured). */
    public boolean isConfigured(BudgetScope scope, String subject) {
        return budgets.get(scope).containsKey(subject);
    }

    public BudgetAdmission admission() {
        return admission;
    }

    public PriceTable prices() {
        return prices;
    }

    /** The completion a request may produce at most when neither it nor its model's price says. */
    public long defaultMaxOutputTokens() {
        return defaultMaxOutputTokens;
    }

    public long leaseMillis() {
        return leaseMillis;
    }
}
