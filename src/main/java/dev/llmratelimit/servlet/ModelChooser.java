package dev.llmratelimit.servlet;

import dev.llmratelimit.chat.ChatRequest;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.identity.Caller;
import dev.llmratelimit.usage.PromptTokens;
import dev.llmratelimit.usage.TokenCounter;

/**
 * Decides a request for its model and, when that model refuses it, for each of the model's fallbacks
 * in order until one admits it (SPEC section 15). A refusal changes no counter, so trying the chain
 * costs nothing but the decisions.
 */
final class ModelChooser {

    private final RateLimitRuntime runtime;

    ModelChooser(RateLimitRuntime runtime) {
        this.runtime = runtime;
    }

    ModelChoice choose(Caller caller, ChatRequest chat, byte[] body) {
        Admission first = admit(caller, chat.model(), chat, body);
        if (first.permitsCall() || first.outcome() != Admission.Outcome.REFUSED) {
            return new ModelChoice(first, chat.model(), null);
        }
        for (String fallback : runtime.fallbacks().chain(chat.model(), first.plan().pool())) {
            Admission next = admit(caller, fallback, chat, body);
            if (next.permitsCall()) {
                return new ModelChoice(next, fallback, chat.model());
            }
        }
        return new ModelChoice(first, chat.model(), null);
    }

    /**
     * Decides one model; the prompt is tokenized (bounded: {@link TokenCounter#promptTokens}) only when
     * {@code token-admission=reserve} needs it for this model. The expected output covers all {@code n}
     * choices when the request sets a maximum.
     */
    private Admission admit(Caller caller, String model, ChatRequest chat, byte[] body) {
        RateLimiter limiter = runtime.limiter();
        long promptTokens = limiter.needsPromptTokens(model)
                ? PromptTokens.count(TokenCounter.forModel(model), chat.shape(), body, body.length) : 0;
        return limiter.admit(model, caller.teamPriority(), caller.ownPriority(),
                promptTokens, chat.maxOutputTokens(), runtime.callerLimits().planFor(caller));
    }
}
