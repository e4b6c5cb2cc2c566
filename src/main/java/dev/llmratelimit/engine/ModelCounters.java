package dev.llmratelimit.engine;

import java.util.List;

/**
 * One model's counters as a decision would count them now, one {@link WindowCounters} per window
 * of its {@link ModelGroups}, in the same order (the configured window first).
 */
public record ModelCounters(List<WindowCounters> windows) {

    public ModelCounters {
        windows = List.copyOf(windows);
    }

    public WindowCounters window(int index) {
        return windows.get(index);
    }

    /** Requests counted in the configured window. */
    public long requests() {
        return windows.get(0).of(Dimension.REQUESTS);
    }

    /** Tokens counted in the configured window. */
    public long tokens() {
        return windows.get(0).of(Dimension.TOKENS);
    }

    /** Time left in the configured window; 0 when none is live. */
    public long remainingMillis() {
        return windows.get(0).remainingMillis();
    }

    /** No window of the model is live. */
    public static ModelCounters idle(ModelGroups model) {
        return new ModelCounters(model.windows().stream().map(window -> WindowCounters.idle(window.pools().size())).toList());
    }
}
