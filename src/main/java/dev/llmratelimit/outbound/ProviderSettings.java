package dev.llmratelimit.outbound;

import java.time.Duration;
import java.util.Map;

/**
 * One provider's limits, from {@code llm.ratelimit.outbound.<provider>.*} or the builder.
 *
 * @param name                 the provider's name in the properties
 * @param baseUrl              the calls it governs: every URL that starts with it; {@code null} for none
 *                             (then only explicit {@link OutboundLimiter#acquire} calls)
 * @param defaults             the limits of every model without its own
 * @param models               per-model limits
 * @param maxWait              the longest a call waits for capacity
 * @param store                where the buckets live
 * @param expectedOutputTokens the output estimate of a call without {@code max_tokens} until the model's
 *                             real average is learned
 * @param lease                how long a permit may stay unsettled; after that it counts as its estimate
 */
public record ProviderSettings(String name, String baseUrl, BucketLimits defaults, Map<String, BucketLimits> models,
                               Duration maxWait, StoreKind store, long expectedOutputTokens, Duration lease) {

    public enum StoreKind { MEMORY, REDIS }

    public ProviderSettings {
        models = Map.copyOf(models);
    }

    public BucketLimits limits(String model) {
        return models.getOrDefault(model, defaults);
    }

    /** Whether this provider governs a call to {@code url}. */
    public boolean governs(String url) {
        return baseUrl != null && url.startsWith(baseUrl)
                && (url.length() == baseUrl.length() || baseUrl.endsWith("/") || "/?#".indexOf(url.charAt(baseUrl.length())) >= 0);
    }
}
