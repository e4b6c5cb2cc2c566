package dev.llmratelimit.observe.otel;

import dev.llmratelimit.observe.Instrument;
import dev.llmratelimit.observe.BudgetStatus;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.BatchCallback;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableLongMeasurement;

import java.util.Map;
import java.util.TreeMap;

/**
 * The budget gauges: each collection reads the configured budgets once (one store read each) and
 * reports, per scope kind ({@code key}, {@code user}, {@code team}) and model ({@code all} for
 * a scope's whole budget), the sum of their hard limits and of what they spent. Budgets whose
 * figures could not be read report nothing for that collection.
 */
final class BudgetGauges {

    static final String WHOLE_BUDGET = "all";
    private static final AttributeKey<String> SCOPE = AttributeKey.stringKey("scope");
    private static final AttributeKey<String> MODEL = AttributeKey.stringKey("model");

    private final Meter meter;
    private final BudgetStatus.Source budgets;
    private final ObservableLongMeasurement limit;
    private final ObservableLongMeasurement spent;

    BudgetGauges(Meter meter, BudgetStatus.Source budgets) {
        this.meter = meter;
        this.budgets = budgets;
        limit = meter.gaugeBuilder(Instrument.BUDGET_LIMIT.id()).ofLongs().setUnit(Instrument.BUDGET_LIMIT.unit())
                .setDescription(Instrument.BUDGET_LIMIT.description()).buildObserver();
        spent = meter.gaugeBuilder(Instrument.BUDGET_SPENT.id()).ofLongs().setUnit(Instrument.BUDGET_SPENT.unit())
                .setDescription(Instrument.BUDGET_SPENT.description()).buildObserver();
    }

    BatchCallback register() {
        return meter.batchCallback(this::observe, limit, spent);
    }

    private void observe() {
        Map<Attributes, long[]> sums = new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
        for (BudgetStatus budget : budgets.get()) {
            if (budget.spentMicros() < 0) {
                continue;
            }
            Attributes attributes = Attributes.of(SCOPE, budget.scope(), MODEL,
                    budget.model() == null ? WHOLE_BUDGET : budget.model());
            long[] sum = sums.computeIfAbsent(attributes, a -> new long[2]);
            sum[0] += Math.max(0, budget.limitMicros());
            sum[1] += budget.spentMicros();
        }
        sums.forEach((attributes, sum) -> {
            limit.record(sum[0], attributes);
            spent.record(sum[1], attributes);
        });
    }
}
