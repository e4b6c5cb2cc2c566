package dev.llmratelimit.interceptor;

import jakarta.enterprise.context.ApplicationScoped;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/** Limited methods whose refusals may wait (model {@code waits}: 1 request per 2 s window). */
@ApplicationScoped
public class WaitingChatService {

    static final AtomicInteger CALLS = new AtomicInteger();

    @RateLimited
    public ChatService.Completion complete(ChatService.Prompt prompt) {
        CALLS.incrementAndGet();
        return new ChatService.Completion("Hello", new ChatService.TokenUsage(3, 2));
    }

    @RateLimited
    public CompletionStage<ChatService.Completion> completeLater(ChatService.Prompt prompt) {
        CALLS.incrementAndGet();
        return CompletableFuture.completedFuture(new ChatService.Completion("Later", new ChatService.TokenUsage(3, 2)));
    }
}
