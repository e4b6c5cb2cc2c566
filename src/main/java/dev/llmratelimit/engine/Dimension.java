package dev.llmratelimit.engine;

/** One limit of a counter group, named as 429 messages and headers name it. */
public enum Dimension {
    REQUESTS("requests"),
    TOKENS("tokens"),
    PARALLEL_REQUESTS("parallel_requests"),
    MONEY("budget");

    private final String label;

    Dimension(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
