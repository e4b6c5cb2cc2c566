package dev.llmratelimit.engine;

import java.util.List;

/**
 * The counter groups of one configured model: its own and each of its pools', in the policy's
 * pool order, as every plan of the model holds them. For reading the model's counters
 * ({@link AdmissionStore#snapshot}) and showing its limits.
 */
public record ModelGroups(CounterGroup model, List<CounterGroup> pools) {

    public ModelGroups {
        pools = List.copyOf(pools);
    }

    public String name() {
        return model.id();
    }

    /** Whether pools are held to their shares above the saturation threshold ({@code false}: only tracked). */
    public boolean poolsEnforced() {
        return !pools.isEmpty() && pools.get(0).enforcement().mode() == Enforcement.Mode.WHEN_SATURATED;
    }

    /** The model's saturation from these counters, as the next decision would compute it. */
    public double saturation(ModelCounters counters) {
        long[] current = new long[Dimension.WINDOWED.size()];
        current[Dimension.REQUESTS.index()] = counters.requests();
        current[Dimension.TOKENS.index()] = counters.tokens();
        return PlanRule.saturation(model, new GroupCounts(current, new long[current.length], 0, 0, 0,
                counters.remainingMillis(), 0));
    }
}
