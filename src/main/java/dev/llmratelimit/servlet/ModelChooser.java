package dev.llmratelimit.servlet;

import dev.llmratelimit.chat.ChatRequest;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.PromptTokens;
import dev.llmratelimit.identity.Caller;
import dev.llmratelimit.usage.RequestPromptTokens;
import dev.llmratelimit.usage.TokenCounter;
import dev.llmratelimit.wait.AdmissionDecider;

import java.util.ArrayList;
import java.util.List;

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
        List<Object> refusedBy = new ArrayList<>(4);
        refusedBy.add(AdmissionDecider.groupOf(first));
        for (String fallback : runtime.fallbacks().chain(chat.model(), first.plan().pool())) {
            Admission next = admit(caller, fallback, chat, body);
            if (next.permitsCall()) {
                return new ModelChoice(next, fallback, chat.model());
            }
            refusedBy.add(AdmissionDecider.groupOf(next));
        }
        return new ModelChoice(first, chat.model(), null, refusedBy.size() == 1 ? List.of() : List.copyOf(refusedBy));
    }

    /**
     * Decides one model. The prompt is tokenized (bounded: {@link TokenCounter#promptTokens}) only if
     * the decision needs it, and not when the body's size already shows it refused; the output cap
     * and the expected output cover all {@code n} choices.
     */
    private Admission admit(Caller caller, String model, ChatRequest chat, byte[] body) {
        PromptTokens prompt = PromptTokens.lazy(
                () -> RequestPromptTokens.count(TokenCounter.forModel(model), chat.shape(), body, body.length),
                TokenCounter.upperBound(body.length));
        return runtime.limiter().admit(AdmissionRequest.of(model, caller.teamPriority(), caller.ownPriority())
                .withCallers(runtime.callerLimits().planFor(caller)).withIdentity(caller.budgetIdentity())
                .withTokens(prompt, chat.outputCapPerChoice())
                .withChoices(chat.n()));
    }
}
