package dev.llmratelimit.outbound;

import dev.llmratelimit.policy.RateLimitType;
import dev.llmratelimit.usage.Usage;

/**
 * The tokens of one call, input and output apart: providers such as Anthropic limit each per minute on
 * its own (ITPM, OTPM) besides, or instead of, their sum (TPM).
 *
 * @param input  prompt tokens (0 or more)
 * @param output completion tokens (0 or more)
 */
public record Tokens(long input, long output) {

    public static final Tokens NONE = new Tokens(0, 0);

    public Tokens {
        if (input < 0 || output < 0) {
            throw new IllegalArgumentException("token counts are 0 or more: " + input + " in, " + output + " out");
        }
    }

    /**
     * What a call's usage says it took, as the provider counts it against its limits: an Anthropic answer's
     * cache reads are not input tokens there; OpenAI's cached tokens are.
     */
    public static Tokens of(Usage usage) {
        return new Tokens(usage.tokens(RateLimitType.INPUT), usage.tokens(RateLimitType.OUTPUT));
    }

    /** Input and output together, as a TPM limit counts them; never wraps. */
    public long total() {
        long sum = input + output;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }
}
