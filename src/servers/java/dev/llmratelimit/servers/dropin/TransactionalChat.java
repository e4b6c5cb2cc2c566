package dev.llmratelimit.servers.dropin;

import dev.llmratelimit.interceptor.RateLimited;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

/** A transactional business method that calls a model. */
@ApplicationScoped
public class TransactionalChat {

    @Transactional
    @RateLimited
    public ChatAnswer complete(ChatBody body) {
        return ChatAnswer.to(body);
    }
}
