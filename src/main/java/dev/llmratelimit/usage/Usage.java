package dev.llmratelimit.usage;

import dev.llmratelimit.policy.RateLimitType;

/**
 * Token usage of one response.
 *
 * @param promptTokens        every prompt token, cached and cache-creation tokens included (an
 *                            Anthropic answer's {@code input_tokens + cache_read_input_tokens +
 *                            cache_creation_input_tokens})
 * @param cachedPromptTokens  prompt tokens served from the provider's cache; they do not count
 * @param cacheCreationTokens prompt tokens written to the provider's cache (Anthropic); part of
 *                            {@code promptTokens} and counted with it, priced apart by budgets
 */
public record Usage(long promptTokens, long completionTokens, long cachedPromptTokens, long cacheCreationTokens) {

    public static final Usage NONE = new Usage(0, 0, 0);

    /** Usage without cache-creation tokens (every OpenAI shape). */
    public Usage(long promptTokens, long completionTokens, long cachedPromptTokens) {
        this(promptTokens, completionTokens, cachedPromptTokens, 0);
    }

    /** The tokens that count against TPM for the given {@code rate-limit-type}, never negative. */
    public long tokens(RateLimitType type) {
        long uncachedPrompt = Math.max(0, promptTokens - cachedPromptTokens);
        long counted = switch (type) {
            case TOTAL -> uncachedPrompt + completionTokens;
            case INPUT -> uncachedPrompt;
            case OUTPUT -> completionTokens;
        };
        return Math.max(0, counted);
    }
}
