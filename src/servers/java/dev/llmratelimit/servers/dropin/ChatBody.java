package dev.llmratelimit.servers.dropin;

import jakarta.json.bind.annotation.JsonbProperty;

import java.util.List;

/** The request of the drop-in sample: a JSON-B bean with OpenAI's snake_case names. */
public class ChatBody {

    private String model;
    private List<ChatMessage> messages;
    private Integer maxTokens;

    public String getModel() {
        return model;
    }

    public void setModel(String model) {
        this.model = model;
    }

    public List<ChatMessage> getMessages() {
        return messages;
    }

    public void setMessages(List<ChatMessage> messages) {
        this.messages = messages;
    }

    @JsonbProperty("max_tokens")
    public Integer getMaxTokens() {
        return maxTokens;
    }

    @JsonbProperty("max_tokens")
    public void setMaxTokens(Integer maxTokens) {
        this.maxTokens = maxTokens;
    }
}
