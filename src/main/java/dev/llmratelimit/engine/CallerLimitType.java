package dev.llmratelimit.engine;

/** The three per-caller limits, named as a 429 message names them. */
public enum CallerLimitType {
    REQUESTS("requests"),
    TOKENS("tokens"),
    PARALLEL_REQUESTS("parallel_requests");

    private final String label;

    CallerLimitType(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
