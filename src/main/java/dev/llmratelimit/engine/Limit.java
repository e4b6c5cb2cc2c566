package dev.llmratelimit.engine;

/** The four limits of a model and its pool, as headers and messages name them. */
public enum Limit {
    MODEL_REQUESTS(false, false),
    MODEL_TOKENS(false, true),
    POOL_REQUESTS(true, false),
    POOL_TOKENS(true, true);

    private final boolean pool;
    private final boolean tokens;

    Limit(boolean pool, boolean tokens) {
        this.pool = pool;
        this.tokens = tokens;
    }

    public boolean isPool() {
        return pool;
    }

    public boolean isTokens() {
        return tokens;
    }

    /** The limit of a model or pool group's dimension; {@code null} for any other. */
    static Limit of(GroupKind kind, Dimension dimension) {
        boolean requests = dimension == Dimension.REQUESTS;
        if (!requests && dimension != Dimension.TOKENS) {
            return null;
        }
        return switch (kind) {
            case MODEL -> requests ? MODEL_REQUESTS : MODEL_TOKENS;
            case POOL -> requests ? POOL_REQUESTS : POOL_TOKENS;
            default -> null;
        };
    }
}
