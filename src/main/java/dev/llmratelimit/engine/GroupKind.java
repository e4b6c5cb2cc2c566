package dev.llmratelimit.engine;

/**
 * What a {@link CounterGroup} counts for. Kinds are data: the rule treats every group alike and
 * only the enforcement, window and limits of a group differ. A new kind adds a constant here and
 * the code that plans its groups; stores need nothing new.
 */
public enum GroupKind {
    /** The model-wide counters; their saturation decides whether pool groups are enforced. */
    MODEL("model", 'm'),
    /** One priority's share of a model; it lives in the model's window. */
    POOL("pool", 'p'),
    KEY("key", 'k'),
    USER("user", 'u'),
    TEAM("team", 't'),
    /** A spend limit per budget period (money in micro-dollars). */
    BUDGET("budget", 'b');

    private final String label;
    private final char code;

    GroupKind(String label, char code) {
        this.label = label;
        this.code = code;
    }

    /** The name in messages, headers and logs. */
    public String label() {
        return label;
    }

    /** One letter that tells the kinds' counters apart in store keys. */
    public char code() {
        return code;
    }
}
