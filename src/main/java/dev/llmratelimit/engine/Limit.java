package dev.llmratelimit.engine;

/** One of the four limits a decision can enforce. */
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
}
