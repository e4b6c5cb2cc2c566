package dev.llmratelimit.engine;

/** The windowed limits of a model and its pool, as headers and messages name them. */
public enum Limit {
    MODEL_REQUESTS(false, Dimension.REQUESTS),
    MODEL_TOKENS(false, Dimension.TOKENS),
    MODEL_INPUT_TOKENS(false, Dimension.INPUT_TOKENS),
    MODEL_OUTPUT_TOKENS(false, Dimension.OUTPUT_TOKENS),
    POOL_REQUESTS(true, Dimension.REQUESTS),
    POOL_TOKENS(true, Dimension.TOKENS),
    POOL_INPUT_TOKENS(true, Dimension.INPUT_TOKENS),
    POOL_OUTPUT_TOKENS(true, Dimension.OUTPUT_TOKENS);

    private final boolean pool;
    private final Dimension dimension;

    Limit(boolean pool, Dimension dimension) {
        this.pool = pool;
        this.dimension = dimension;
    }

    public boolean isPool() {
        return pool;
    }

    public boolean isTokens() {
        return dimension.isTokens();
    }

    public Dimension dimension() {
        return dimension;
    }

    /** The limit of a model or pool group's dimension; {@code null} for any other. */
    static Limit of(GroupKind kind, Dimension dimension) {
        if (!dimension.isWindowed() || kind != GroupKind.MODEL && kind != GroupKind.POOL) {
            return null;
        }
        for (Limit limit : values()) {
            if (limit.pool == (kind == GroupKind.POOL) && limit.dimension == dimension) {
                return limit;
            }
        }
        throw new IllegalStateException("No limit for " + dimension);
    }
}
