package dev.llmratelimit.engine;

import dev.llmratelimit.budget.BudgetIdentity;

/**
 * One request as the engine decides it.
 *
 * @param model           the request body's {@code model}
 * @param preferred       the caller's first-choice priority (its team's), or {@code null}
 * @param fallback        the priority used when the model does not configure {@code preferred}, or {@code null}
 * @param callers         the caller's per-scope limits, or {@code null} when none applies
 * @param prompt          the request's prompt tokens, counted only when an estimate needs them
 * @param maxOutputTokens the request's {@code max_completion_tokens}/{@code max_tokens}, or {@link #UNKNOWN_OUTPUT}
 * @param n               completions asked for (the body's {@code n}), at least 1
 * @param requestId       names the decision in the store (markers, compensation): unique per request across
 *                        every instance sharing the store, since a store takes a second decision under an
 *                        id for a retry of the first (a failure that may have run, whose cancel takes
 *                        that first decision back); {@code null}: the engine makes one
 * @param identity        whom the request's spend counts on (budgets)
 */
public record AdmissionRequest(String model, String preferred, String fallback, CallerPlan callers,
                               PromptTokens prompt, long maxOutputTokens, int n, String requestId,
                               BudgetIdentity identity) {

    /** The {@code maxOutputTokens} of a request that sets no {@code max_tokens}. */
    public static final long UNKNOWN_OUTPUT = -1;

    public AdmissionRequest {
        if (prompt == null) {
            prompt = PromptTokens.NONE;
        }
        n = Math.max(1, n);
        if (identity == null) {
            identity = BudgetIdentity.NONE;
        }
    }

    /** A request without prompt, output limit or caller limits. */
    public static AdmissionRequest of(String model, String preferred, String fallback) {
        return new AdmissionRequest(model, preferred, fallback, null, PromptTokens.NONE, UNKNOWN_OUTPUT, 1, null,
                BudgetIdentity.NONE);
    }

    public AdmissionRequest withCallers(CallerPlan plan) {
        return new AdmissionRequest(model, preferred, fallback, plan, prompt, maxOutputTokens, n, requestId, identity);
    }

    public AdmissionRequest withTokens(PromptTokens promptTokens, long maxOutput) {
        return new AdmissionRequest(model, preferred, fallback, callers, promptTokens, maxOutput, n, requestId, identity);
    }

    public AdmissionRequest withChoices(int choices) {
        return new AdmissionRequest(model, preferred, fallback, callers, prompt, maxOutputTokens, choices, requestId, identity);
    }

    public AdmissionRequest withIdentity(BudgetIdentity whom) {
        return new AdmissionRequest(model, preferred, fallback, callers, prompt, maxOutputTokens, n, requestId, whom);
    }

    public AdmissionRequest withRequestId(String id) {
        return new AdmissionRequest(model, preferred, fallback, callers, prompt, maxOutputTokens, n, id, identity);
    }
}
