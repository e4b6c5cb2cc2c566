package dev.llmratelimit.engine;

/**
 * The counters of one model and one of its pools as a store holds them when a decision reads them:
 * the live window's, and the previous window's (only a sliding window keeps those; 0 otherwise).
 *
 * @param remainingMillis milliseconds until the live window ends
 * @param windowEnd       the end of the live window on the store's clock, which names it
 */
public record WindowCounts(long requests, long tokens, long poolRequests, long poolTokens,
                           long previousRequests, long previousTokens,
                           long previousPoolRequests, long previousPoolTokens,
                           long remainingMillis, long windowEnd) {
}
