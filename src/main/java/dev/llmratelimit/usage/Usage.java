package dev.llmratelimit.usage;

import dev.llmratelimit.policy.RateLimitType;

/**
 * Token usage of one response. Each figure is held to [0, {@link #MAX_TOKENS}]: a larger one (an
 * application echoing {@code max_tokens: 9223372036854775797}, a figure beyond {@code long}) counts
 * as {@link #MAX_TOKENS}, large but never wrapping a sum, and never as zero.
 *
 * @param promptTokens        every prompt token, cached and cache-creation tokens included (an
 *                            Anthropic answer's {@code input_tokens + cache_read_input_tokens +
 *                            cache_creation_input_tokens})
 * @param cachedPromptTokens  prompt tokens served from the provider's cache; priced apart by budgets, and
 *                            left out of the TPM count only where the provider leaves them out
 *                            ({@code cacheReadsExemptFromTpm})
 * @param cacheCreationTokens prompt tokens written to the provider's cache (Anthropic); part of
 *                            {@code promptTokens} and counted with it, priced apart by budgets
 * @param cacheCreation1hTokens the part of {@code cacheCreationTokens} written to the 1-hour cache
 *                            (Anthropic's {@code cache_creation.ephemeral_1h_input_tokens}), priced apart
 * @param cacheReadsExemptFromTpm whether the provider's rate limits leave cached prompt tokens out:
 *                            Anthropic's do; OpenAI's count them as input tokens
 */
public record Usage(long promptTokens, long completionTokens, long cachedPromptTokens, long cacheCreationTokens,
                    long cacheCreation1hTokens, boolean cacheReadsExemptFromTpm) {

    /**
     * More tokens than any response uses (2^31 - 1, some 200 times the largest context window): sums
     * of a few figures stay far from {@code long} overflow, and exact as Lua numbers (doubles, below 2^53).
     */
    public static final long MAX_TOKENS = Integer.MAX_VALUE;

    public static final Usage NONE = new Usage(0, 0, 0);

    /** Usage without cache-creation tokens, whose cached tokens count against TPM (every OpenAI shape). */
    public Usage(long promptTokens, long completionTokens, long cachedPromptTokens) {
        this(promptTokens, completionTokens, cachedPromptTokens, 0);
    }

    /** Usage whose cache writes all went to the 5-minute cache, and whose cached tokens count against TPM. */
    public Usage(long promptTokens, long completionTokens, long cachedPromptTokens, long cacheCreationTokens) {
        this(promptTokens, completionTokens, cachedPromptTokens, cacheCreationTokens, 0, false);
    }

    public Usage {
        promptTokens = plausible(promptTokens);
        completionTokens = plausible(completionTokens);
        cachedPromptTokens = plausible(cachedPromptTokens);
        cacheCreationTokens = plausible(cacheCreationTokens);
        cacheCreation1hTokens = Math.min(plausible(cacheCreation1hTokens), cacheCreationTokens);
    }

    private static long plausible(long figure) {
        return Math.min(MAX_TOKENS, Math.max(0, figure));
    }

    /** A figure reached {@link #MAX_TOKENS}: the usage is broken, and counted as large. */
    public boolean isImplausible() {
        return promptTokens == MAX_TOKENS || completionTokens == MAX_TOKENS || cachedPromptTokens == MAX_TOKENS
                || cacheCreationTokens == MAX_TOKENS;
    }

    /**
     * The tokens that count against TPM for the given {@code rate-limit-type}, as the provider counts
     * them against its own limits, never negative.
     */
    public long tokens(RateLimitType type) {
        long uncachedPrompt = Math.max(0, promptTokens - (cacheReadsExemptFromTpm ? cachedPromptTokens : 0));
        long counted = switch (type) {
            case TOTAL -> uncachedPrompt + completionTokens;
            case INPUT -> uncachedPrompt;
            case OUTPUT -> completionTokens;
        };
        return Math.max(0, counted);
    }
}
