package dev.llmratelimit.servers.dropin;

import jakarta.json.bind.annotation.JsonbProperty;

/** The answer of the drop-in sample: a JSON-B bean whose usage the interceptor records. */
public class ChatAnswer {

    private String model;
    private String content;
    private Integer maxTokens;
    private TokenUsage usage;

    /** A fixed answer to {@code body}: 12 prompt and 20 completion tokens. */
    public static ChatAnswer to(ChatBody body) {
        ChatAnswer answer = new ChatAnswer();
        answer.model = body.getModel();
        answer.content = "Hello from " + body.getModel();
        answer.maxTokens = body.getMaxTokens();
        answer.usage = new TokenUsage(12, 20);
        return answer;
    }

    public String getModel() {
        return model;
    }

    public void setModel(String model) {
        this.model = model;
    }

    public String getContent() {
        return content;
    }

    public void setContent(String content) {
        this.content = content;
    }

    @JsonbProperty("max_tokens")
    public Integer getMaxTokens() {
        return maxTokens;
    }

    @JsonbProperty("max_tokens")
    public void setMaxTokens(Integer maxTokens) {
        this.maxTokens = maxTokens;
    }

    public TokenUsage getUsage() {
        return usage;
    }

    public void setUsage(TokenUsage usage) {
        this.usage = usage;
    }
}
