package dev.llmratelimit.interceptor;

import jakarta.enterprise.context.ApplicationScoped;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** A business bean that calls a model: request and answer as application objects, or as maps. */
@ApplicationScoped
public class ChatService {

    /** How often a limited method actually ran. */
    public static final AtomicInteger CALLS = new AtomicInteger();

    public record Prompt(String model, String text) {
    }

    public record TokenUsage(long promptTokens, long completionTokens) {
    }

    public record Completion(String text, TokenUsage usage) {
    }

    @RateLimited
    public Completion complete(Prompt prompt) {
        CALLS.incrementAndGet();
        return new Completion("Hello", new TokenUsage(30, 20));
    }

    @RateLimited
    public Map<String, Object> complete(Map<String, Object> request) {
        CALLS.incrementAndGet();
        return Map.of("choices", "...", "usage", Map.of("prompt_tokens", 70, "completion_tokens", 10,
                "prompt_tokens_details", Map.of("cached_tokens", 40)));
    }

    @RateLimited
    public String failing(Prompt prompt) {
        CALLS.incrementAndGet();
        throw new IllegalStateException("the model is down");
    }
}
