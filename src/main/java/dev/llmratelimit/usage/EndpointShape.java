package dev.llmratelimit.usage;

import java.util.Locale;

/**
 * The kinds of endpoint that spend a model's quota (docs/endpoints.md), each with its own request
 * fields and its own usage format.
 */
public enum EndpointShape {
    /** OpenAI {@code /v1/chat/completions}. */
    CHAT("chat", "/chat/completions"),
    /** OpenAI's legacy {@code /v1/completions}: chat's usage, text in {@code choices[].text}. */
    COMPLETIONS("completions", "/completions"),
    /** OpenAI {@code /v1/embeddings}: a prompt and no completion. */
    EMBEDDINGS("embeddings", "/embeddings"),
    /** OpenAI's Responses API {@code /v1/responses}. */
    RESPONSES("responses", "/responses"),
    /** Anthropic's Messages API {@code /v1/messages}. */
    MESSAGES("messages", "/messages");

    private final String configName;
    private final String pathSuffix;

    EndpointShape(String configName, String pathSuffix) {
        this.configName = configName;
        this.pathSuffix = pathSuffix;
    }

    /** The name in {@code llm.ratelimit.path-shapes} ({@code chat}, {@code completions}, ...). */
    public String configName() {
        return configName;
    }

    /** The default path of this shape, {@code /v1/...}. */
    public String defaultPath() {
        return "/v1" + pathSuffix;
    }

    /** Whether the API has {@code stream_options.include_usage}, so the filter may ask for usage. */
    public boolean hasIncludeUsageOption() {
        return this == CHAT || this == COMPLETIONS;
    }

    /**
     * The shape a path's last segments name, or {@code null}: {@code .../chat/completions} is chat,
     * any other {@code .../completions} legacy completions.
     */
    public static EndpointShape ofPath(String path) {
        if (path.endsWith(CHAT.pathSuffix)) {
            return CHAT;
        }
        for (EndpointShape shape : values()) {
            if (path.endsWith(shape.pathSuffix)) {
                return shape;
            }
        }
        return null;
    }

    /** The shape of a configuration name, or {@code null}. */
    public static EndpointShape ofConfigName(String name) {
        String wanted = name.trim().toLowerCase(Locale.ROOT);
        for (EndpointShape shape : values()) {
            if (shape.configName.equals(wanted)) {
                return shape;
            }
        }
        return null;
    }
}
