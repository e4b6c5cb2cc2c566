package dev.llmratelimit.observe;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.Refusal;
import dev.llmratelimit.engine.WindowLength;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The label of the limit that refused a decision, by a small index, as one observer (the metrics,
 * the status page) keeps them: {@code <scope>_<dimension>} for a limit of the configured window
 * ({@code model_requests}), with the window's length after it for a limit of a further window
 * ({@code model_requests_1d}, {@code team_tokens_30d}). Labels of further windows are made on
 * their first refusal, at most {@value #FURTHER_WINDOWS} per instance (a scope's further windows
 * times its dimensions, over every scope and reload; beyond that a refusal keeps the label without
 * its window), so tables of a decision's attributes stay arrays: see {@link #slot}.
 */
public final class LimitLabels {

    static final int FURTHER_WINDOWS = 256;
    private static final int MODES = DecisionLabels.modeCount();
    private static final int OUTCOMES = DecisionLabels.outcomeCount();

    private final String[] labels = new String[DecisionLabels.fixedLimitCount() + FURTHER_WINDOWS];
    /** The index of each further window's label. */
    private final ConcurrentMap<Further, Integer> further = new ConcurrentHashMap<>();
    /** The next free label index; guarded by this. */
    private int next = DecisionLabels.fixedLimitCount();

    /** A limit of a further window: the index of its label without the window, and the window's length. */
    private record Further(int fixed, long window) {
    }

    public LimitLabels() {
        for (int i = 0; i < DecisionLabels.fixedLimitCount(); i++) {
            labels[i] = DecisionLabels.fixedLimit(i);
        }
    }

    /** How many labels there can be: every {@link #index} is below it. */
    int count() {
        return labels.length;
    }

    /** The size of an array indexed by {@link #slot}. */
    public int slots() {
        return (OUTCOMES + labels.length - 1) * MODES * 2;
    }

    /**
     * A decision's place in a table of its attribute sets (outcome, limit, mode, shadow). Only a
     * refused decision has a limit other than {@code none}, so the table holds the outcomes once
     * and the refusing limits once, not their product.
     */
    public int slot(int outcome, int limit, int mode, boolean shadow) {
        int row = limit == 0 ? outcome : OUTCOMES + limit - 1;
        return (row * MODES + mode) * 2 + (shadow ? 1 : 0);
    }

    /** {@code none}, {@code model_requests}, {@code key_parallel_requests}, {@code model_requests_1d}, {@code budget}, ... */
    public String label(int index) {
        return labels[index];
    }

    /** The index of the limit that refused the request, 0 when none did. */
    public int index(Admission admission) {
        Refusal refusal = admission.refusal();
        int fixed = DecisionLabels.fixedLimitIndex(refusal);
        if (refusal == null || !refusal.dimension().isWindowed() || refusal.group().window().tag().isEmpty()) {
            return fixed;
        }
        long window = refusal.group().window().millis();
        Integer index = further.get(new Further(fixed, window));
        return index != null ? index : register(new Further(fixed, window));
    }

    private synchronized int register(Further limit) {
        Integer known = further.get(limit);
        if (known != null) {
            return known;
        }
        if (next == labels.length) {
            further.put(limit, limit.fixed());      // remembered, so the next refusal finds it without the lock
            return limit.fixed();
        }
        int index = next++;
        labels[index] = labels[limit.fixed()] + "_" + WindowLength.format(limit.window());   // set before the index is published
        further.put(limit, index);
        return index;
    }
}
