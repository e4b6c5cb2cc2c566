package dev.llmratelimit.observe;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.GroupKind;
import dev.llmratelimit.engine.Refusal;
import dev.llmratelimit.engine.Verdict;

import java.util.Locale;

/**
 * The names metrics and the status page give to a decision: its outcome, the limit that refused it
 * and the mode it was decided in. Every value comes from a closed set (enums of the engine), never
 * from request text, and each has a small index so tables of precomputed attributes can be arrays.
 */
public final class DecisionLabels {

    /** The value of the model attribute for a model that is not configured (its name is request text). */
    public static final String UNCONFIGURED_MODEL = "unconfigured";
    /** The value of the pool attribute when no pool was involved (an unconfigured model). */
    public static final String NO_POOL = "none";

    private static final Admission.Outcome[] OUTCOMES = Admission.Outcome.values();
    private static final String[] OUTCOME_LABELS = new String[OUTCOMES.length];
    private static final int DIMENSIONS = Dimension.values().length;
    private static final String[] LIMIT_LABELS = new String[1 + GroupKind.values().length * DIMENSIONS];
    private static final String[] MODE_LABELS = {"none", "generous", "strict"};

    static {
        for (Admission.Outcome outcome : OUTCOMES) {
            OUTCOME_LABELS[outcome.ordinal()] = outcome.name().toLowerCase(Locale.ROOT);
        }
        LIMIT_LABELS[0] = "none";
        for (GroupKind kind : GroupKind.values()) {
            for (Dimension dimension : Dimension.values()) {
                LIMIT_LABELS[limitIndex(kind, dimension)] = kind == GroupKind.BUDGET ? "budget"
                        : kind.label() + "_" + dimension.label();
            }
        }
    }

    private DecisionLabels() {
    }

    public static int outcomeCount() {
        return OUTCOME_LABELS.length;
    }

    /** How many limit labels there are without windows ({@link LimitLabels} adds those of further windows). */
    static int fixedLimitCount() {
        return LIMIT_LABELS.length;
    }

    public static int modeCount() {
        return MODE_LABELS.length;
    }

    /** {@code admitted}, {@code refused}, {@code unlimited}, {@code unknown_model}, {@code store_failed_open}, {@code store_failed_closed}. */
    public static String outcome(int index) {
        return OUTCOME_LABELS[index];
    }

    /** {@code none}, {@code model_requests} ... {@code pool_tokens}, {@code key_requests} ... {@code team_parallel_requests}, {@code budget}. */
    static String fixedLimit(int index) {
        return LIMIT_LABELS[index];
    }

    /** {@code none} (no verdict), {@code generous}, {@code strict}. */
    public static String mode(int index) {
        return MODE_LABELS[index];
    }

    public static int outcomeIndex(Admission admission) {
        return admission.outcome().ordinal();
    }

    /** The index of the limit that refused the request by its scope and dimension, 0 when none did. */
    static int fixedLimitIndex(Refusal refusal) {
        return refusal == null ? 0 : limitIndex(refusal.group().kind(), refusal.dimension());
    }

    /** 0 when no verdict was made, 1 generous, 2 strict. */
    public static int modeIndex(Admission admission) {
        Verdict verdict = admission.verdict();
        return verdict == null ? 0 : verdict.strict() ? 2 : 1;
    }

    private static int limitIndex(GroupKind kind, Dimension dimension) {
        return 1 + kind.ordinal() * DIMENSIONS + dimension.ordinal();
    }
}
