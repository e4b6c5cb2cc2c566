package dev.llmratelimit.observe;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.BudgetExtension;
import dev.llmratelimit.engine.BudgetFigures;
import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.DecisionObserver;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.http.BudgetTexts;

import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Warns once per soft budget and period (on this instance) when a decision finds it reached: a log
 * line and {@link Metrics#softBudgetReached}. Every answer in the scope still carries the warning
 * header. Remembers the budgets warned about until their periods end, about {@value #REMEMBERED} at most
 * (beyond, it forgets them all and may warn again).
 */
public final class SoftBudgetWarnings implements DecisionObserver {

    static final int REMEMBERED = 10_000;
    private static final System.Logger LOG = System.getLogger(SoftBudgetWarnings.class.getName());

    private final Metrics metrics;
    private final Clock clock;
    /** Budget group and period, to the period's end. */
    private final Map<String, Long> warned = new ConcurrentHashMap<>();

    public SoftBudgetWarnings(Metrics metrics, Clock clock) {
        this.metrics = metrics;
        this.clock = clock;
    }

    /** Uses no elapsed time. */
    @Override
    public boolean timesDecisions() {
        return false;
    }

    @Override
    public void decided(Admission admission, long elapsedNanos) {
        Verdict verdict = admission.verdict();
        if (verdict == null || verdict.budget().softReached() < 0) {
            return;
        }
        BudgetFigures budget = verdict.budget();
        CounterGroup soft = admission.plan().group(budget.softReached());
        long periodEnd = soft.window().periodEnd();
        String key = soft.id() + '\u0000' + soft.member() + '\u0000' + soft.window().periodId();
        if (warned.putIfAbsent(key, periodEnd) != null) {
            return;
        }
        if (warned.size() > REMEMBERED) {
            long now = clock.millis();
            warned.values().removeIf(end -> end <= now);
            if (warned.size() > REMEMBERED) {
                warned.clear();                      // a repeated warning is harmless; unbounded memory is not
            }
        }
        LOG.log(System.Logger.Level.WARNING, BudgetTexts.softReached(admission.plan(), budget)
                + " in the period ending " + Instant.ofEpochMilli(periodEnd));
        metrics.softBudgetReached(BudgetExtension.scopeOf(soft).label());
    }
}
