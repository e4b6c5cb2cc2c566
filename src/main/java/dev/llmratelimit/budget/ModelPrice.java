package dev.llmratelimit.budget;

/**
 * The prices of one model in pico-dollars (10^-12 USD) per token, so a price of USD 2.50 per million
 * tokens is exactly 2,500,000 and a LiteLLM per-token cost of {@code 2.5e-06} is the same.
 *
 * @param cacheWrite      a prompt token written to the provider's 5-minute cache
 * @param cacheWrite1h    a prompt token written to the provider's 1-hour cache
 * @param maxOutputTokens the completion a request without {@code max_tokens} may produce at most; 0 when unknown
 */
public record ModelPrice(long input, long output, long cachedInput, long cacheWrite, long cacheWrite1h,
                         long maxOutputTokens) {

    private static final long PICOS_PER_MICRO = 1_000_000L;

    /** {@link #costMicros(long, long, long, long, long)} without writes to the 1-hour cache. */
    public long costMicros(long uncachedPrompt, long cachedPrompt, long cacheCreation, long completion) {
        return costMicros(uncachedPrompt, cachedPrompt, cacheCreation, 0, completion);
    }

    /**
     * The cost in whole micro-dollars, rounded up: uncached prompt x input + cached prompt x
     * cached-input + 5-minute cache writes x cache-write + 1-hour cache writes x cache-write-1h +
     * completion x output. Token counts below 0 count as 0; a cost beyond {@code long} saturates.
     */
    public long costMicros(long uncachedPrompt, long cachedPrompt, long cacheCreation5m, long cacheCreation1h,
                           long completion) {
        long picos = times(uncachedPrompt, input);
        picos = Micros.plus(picos, times(cachedPrompt, cachedInput));
        picos = Micros.plus(picos, times(cacheCreation5m, cacheWrite));
        picos = Micros.plus(picos, times(cacheCreation1h, cacheWrite1h));
        picos = Micros.plus(picos, times(completion, output));
        if (picos == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        return picos / PICOS_PER_MICRO + (picos % PICOS_PER_MICRO == 0 ? 0 : 1);
    }

    private static long times(long tokens, long picosPerToken) {
        if (tokens <= 0 || picosPerToken == 0) {
            return 0;
        }
        long high = Math.multiplyHigh(tokens, picosPerToken);
        long product = tokens * picosPerToken;
        return high != 0 || product < 0 ? Long.MAX_VALUE : product;
    }
}
