package dev.llmratelimit.servers.dropin;

import jakarta.json.bind.annotation.JsonbProperty;

/** The usage of a {@link ChatAnswer}, with OpenAI's snake_case names through JSON-B. */
public class TokenUsage {

    private long promptTokens;
    private long completionTokens;

    public TokenUsage() {
    }

    public TokenUsage(long promptTokens, long completionTokens) {
        this.promptTokens = promptTokens;
        this.completionTokens = completionTokens;
    }

    @JsonbProperty("prompt_tokens")
    public long getPromptTokens() {
        return promptTokens;
    }

    @JsonbProperty("prompt_tokens")
    public void setPromptTokens(long promptTokens) {
        this.promptTokens = promptTokens;
    }

    @JsonbProperty("completion_tokens")
    public long getCompletionTokens() {
        return completionTokens;
    }

    @JsonbProperty("completion_tokens")
    public void setCompletionTokens(long completionTokens) {
        this.completionTokens = completionTokens;
    }
}
