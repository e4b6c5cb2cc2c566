package dev.llmratelimit.servlet;

import dev.llmratelimit.chat.ChatRequest;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.config.ResolvedCaller;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.PromptTokens;
import dev.llmratelimit.usage.RequestPromptTokens;
import dev.llmratelimit.usage.TokenCounter;
import dev.llmratelimit.wait.AdmissionDecider;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Decides one request for its model and, when that model refuses it, for each of the model's
 * fallbacks in order until one admits it. A refusal changes no counter, so trying the chain costs
 * nothing but the decisions. A request that waits is decided again by the same chooser, which
 * remembers its prompt count per model: a decision again never tokenizes again.
 */
final class ModelChooser {

    private final RateLimitRuntime runtime;
    private final ResolvedCaller caller;
    private final ChatRequest chat;
    private final byte[] body;
    private final Map<String, PromptTokens> promptByModel = new ConcurrentHashMap<>(2);

    ModelChooser(RateLimitRuntime runtime, ResolvedCaller caller, ChatRequest chat, byte[] body) {
        this.runtime = runtime;
        this.caller = caller;
        this.chat = chat;
        this.body = body;
    }

    ModelChoice choose() {
        Admission first = admit(chat.model());
        if (first.permitsCall() || first.outcome() != Admission.Outcome.REFUSED) {
            return new ModelChoice(first, chat.model(), null);
        }
        List<Object> refusedBy = new ArrayList<>(4);
        refusedBy.add(AdmissionDecider.groupOf(first));
        for (String fallback : runtime.fallbacks().chain(chat.model(), first.plan().pool())) {
            Admission next = admit(fallback);
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
    private Admission admit(String model) {
        return runtime.admit(caller, who -> AdmissionRequest.of(model, who.teamPriority(), who.ownPriority())
                .withIdentity(who.budgetIdentity())
                .withTokens(promptByModel.computeIfAbsent(model, this::prompt), chat.outputCapPerChoice())
                .withChoices(chat.n()));
    }

    private PromptTokens prompt(String model) {
        return PromptTokens.lazy(
                () -> RequestPromptTokens.count(TokenCounter.forModel(model), chat.shape(), body, body.length),
                TokenCounter.upperBound(body.length));
    }
}
