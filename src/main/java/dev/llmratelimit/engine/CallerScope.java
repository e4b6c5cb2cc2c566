package dev.llmratelimit.engine;

/** Whose counters a per-caller limit counts on: the API key, the user behind it, or the user's team. */
public enum CallerScope {
    KEY(GroupKind.KEY),
    USER(GroupKind.USER),
    TEAM(GroupKind.TEAM);

    private final GroupKind kind;

    CallerScope(GroupKind kind) {
        this.kind = kind;
    }

    /** The kind of the groups this scope's limits make. */
    public GroupKind kind() {
        return kind;
    }

    /** The name in property names, messages and logs: {@code key}, {@code user}, {@code team}. */
    public String label() {
        return kind.label();
    }

    /** One letter that tells the scopes' counters apart in store keys. */
    public char code() {
        return kind.code();
    }
}
