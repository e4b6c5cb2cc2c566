package dev.llmratelimit.engine;

import java.util.List;

/**
 * The counter groups of one configured model: per window its limits use (the configured window
 * first) the model's group and each of its pools', in the policy's pool order, as every plan of the
 * model holds them. For reading the model's counters ({@link AdmissionStore#snapshot}) and showing
 * its limits.
 */
public record ModelGroups(String name, List<Window> windows) {

    /** One window of the model: its own group and its pools' groups, in pool order. */
    public record Window(CounterGroup model, List<CounterGroup> pools) {

        public Window {
            pools = List.copyOf(pools);
        }
    }

    public ModelGroups {
        windows = List.copyOf(windows);
    }

    /** The model's group of the configured window. */
    public CounterGroup model() {
        return windows.get(0).model();
    }

    /** The pools' groups of the configured window. */
    public List<CounterGroup> pools() {
        return windows.get(0).pools();
    }

    /** Whether the pools share the model work-conservingly (their shares among the active pools). */
    public boolean sharesWork() {
        return !pools().isEmpty() && pools().get(0).sharing() != null;
    }

    /** Whether pools are held to their shares above the saturation threshold ({@code false}: only tracked). */
    public boolean poolsEnforced() {
        return !pools().isEmpty() && pools().get(0).enforcement().mode() == Enforcement.Mode.WHEN_SATURATED;
    }

    /** The model's saturation from these counters, over every window, as the next decision would compute it. */
    public double saturation(ModelCounters counters) {
        double saturation = 0.0;
        for (int i = 0; i < windows.size(); i++) {
            saturation = Math.max(saturation, PlanRule.saturation(windows.get(i).model(), counters.window(i).asCounts()));
        }
        return saturation;
    }
}
