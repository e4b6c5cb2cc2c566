package dev.llmratelimit.budget;

/** Whose spend a budget limits: the API key, the user behind it, or the user's team. */
public enum BudgetScope {
    KEY("key", "principals", 'k'),
    USER("user", "users", 'u'),
    TEAM("team", "teams", 't');

    private final String label;
    private final String section;
    private final char code;

    BudgetScope(String label, String section, char code) {
        this.label = label;
        this.section = section;
        this.code = code;
    }

    /** The name in messages and in {@code defaults.<label>.budget}: {@code key}, {@code user}, {@code team}. */
    public String label() {
        return label;
    }

    /** The property section that names the scope's budgets: {@code principals}, {@code users}, {@code teams}. */
    public String section() {
        return section;
    }

    /** One letter that tells the scopes' counters apart in store keys. */
    public char code() {
        return code;
    }
}
