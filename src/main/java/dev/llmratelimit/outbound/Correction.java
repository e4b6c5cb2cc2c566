package dev.llmratelimit.outbound;

/**
 * What a provider's answer tells the buckets; each figure is absent ({@link #NONE}) when the answer did
 * not carry it. Applied downward only: a bucket is lowered to agree, never raised.
 *
 * @param remainingRequests what the provider says is left of its request limit
 * @param requestsResetMillis in how long the provider's request limit is full again
 * @param remainingTokens   what is left of its token limit (the least of every token limit it names)
 * @param tokensResetMillis in how long the provider's token limit is full again
 * @param pauseMillis       a 429's {@code retry-after}: nothing starts before that long from now
 */
public record Correction(long remainingRequests, long requestsResetMillis, long remainingTokens,
                         long tokensResetMillis, long pauseMillis) {

    public static final long NONE = -1;

    public static final Correction EMPTY = new Correction(NONE, NONE, NONE, NONE, NONE);

    public boolean isEmpty() {
        return equals(EMPTY);
    }

    public Correction withPause(long millis) {
        return new Correction(remainingRequests, requestsResetMillis, remainingTokens, tokensResetMillis, millis);
    }
}
