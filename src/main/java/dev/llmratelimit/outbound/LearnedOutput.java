package dev.llmratelimit.outbound;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The average completion tokens of each (provider, model), learned from settled calls: the output
 * estimate of a call that sets no {@code max_tokens}. An exponential average (each call weighs
 * 1/{@value #WEIGHT}) that starts at the provider's {@code expected-output-tokens}.
 */
final class LearnedOutput {

    private static final int WEIGHT = 16;
    private static final int MAX_MODELS = 10_000;

    private final Map<BucketKey, Long> averages = new ConcurrentHashMap<>();

    long average(BucketKey key, long initial) {
        return averages.getOrDefault(key, initial);
    }

    void learn(BucketKey key, long completionTokens, long initial) {
        if (completionTokens < 0 || (averages.size() >= MAX_MODELS && !averages.containsKey(key))) {
            return;
        }
        averages.merge(key, initial + (completionTokens - initial) / WEIGHT,
                (old, ignored) -> old + (completionTokens - old) / WEIGHT);
    }
}
