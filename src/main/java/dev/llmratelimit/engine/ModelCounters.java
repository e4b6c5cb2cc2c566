package dev.llmratelimit.engine;

import java.util.Arrays;
import java.util.List;

/**
 * One model's counters as a decision would count them now, one {@link WindowCounters} per window
 * of its {@link ModelGroups}, in the same order (the configured window first).
 *
 * @param active under work-conserving fairness, per pool in pool order, whether it asked within the
 *               configured window; {@code null} for fixed shares
 */
public record ModelCounters(List<WindowCounters> windows, boolean[] active) {

    public ModelCounters {
        windows = List.copyOf(windows);
        active = active == null ? null : active.clone();
    }

    public ModelCounters(List<WindowCounters> windows) {
        this(windows, null);
    }

    /** Whether the pool asked within the configured window (work-conserving fairness only). */
    public boolean active(int pool) {
        return active != null && active[pool];
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

    /** No window of the model is live and no pool asked. */
    public static ModelCounters idle(ModelGroups model) {
        return new ModelCounters(model.windows().stream().map(window -> WindowCounters.idle(window.pools().size())).toList(),
                model.sharesWork() ? new boolean[model.pools().size()] : null);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ModelCounters that && windows.equals(that.windows) && Arrays.equals(active, that.active);
    }

    @Override
    public int hashCode() {
        return windows.hashCode() * 31 + Arrays.hashCode(active);
    }

    @Override
    public String toString() {
        return "ModelCounters[windows=" + windows + (active == null ? "" : ", active=" + Arrays.toString(active)) + "]";
    }
}
