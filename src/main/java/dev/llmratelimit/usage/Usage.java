package dev.llmratelimit.usage;

import dev.llmratelimit.policy.RateLimitType;

/**
 * Token usage of one response.
 *
 * @param cachedPromptTokens prompt tokens served from the provider's cache; they do not count
 */
public record Usage(long promptTokens, long completionTokens, long cachedPromptTokens) {

    public static final Usage NONE = new Usage(0, 0, 0);

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
