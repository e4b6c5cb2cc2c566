package dev.llmratelimit.engine;

/** Whose counters a per-caller limit counts on: the API key, the user behind it, or the user's team. */
public enum CallerScope {
    KEY("key", 'k'),
    USER("user", 'u'),
    TEAM("team", 't');

    private final String label;
    private final char code;

    CallerScope(String label, char code) {
        this.label = label;
        this.code = code;
    }

    /** The name in property names, messages and logs: {@code key}, {@code user}, {@code team}. */
    public String label() {
        return label;
    }

    /** One letter that tells the scopes' counters apart in store keys. */
    public char code() {
        return code;
    }
}
