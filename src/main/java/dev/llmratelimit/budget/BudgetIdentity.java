package dev.llmratelimit.budget;

/**
 * The identities a request's spend counts on, each {@code null} when the caller has none.
 *
 * @param key  the principal's name (which may be the API key itself)
 */
public record BudgetIdentity(String key, String user, String team) {

    public static final BudgetIdentity NONE = new BudgetIdentity(null, null, null);

    String of(BudgetScope scope) {
        return switch (scope) {
            case KEY -> key;
            case USER -> user;
            case TEAM -> team;
        };
    }

    /** Names are customer data (a key name may be the key): never printed. */
    @Override
    public String toString() {
        return "BudgetIdentity[key=" + (key != null) + ", user=" + (user != null) + ", team=" + (team != null) + "]";
    }
}
