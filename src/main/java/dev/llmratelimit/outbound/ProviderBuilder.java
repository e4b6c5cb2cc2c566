package dev.llmratelimit.outbound;

import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/** One provider's settings, with the defaults of {@code llm.ratelimit.outbound.<provider>.*}. */
public final class ProviderBuilder {

    public static final double DEFAULT_HEADROOM = 0.9;
    public static final double DEFAULT_BURST = 1.0;
    public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(30);
    public static final long DEFAULT_EXPECTED_OUTPUT_TOKENS = 256;
    public static final Duration DEFAULT_LEASE = Duration.ofMinutes(10);

    private final String name;
    private String baseUrl;
    private final Map<Dimension, Long> limits = new EnumMap<>(Dimension.class);
    /** Each model's own figures; a dimension it does not name keeps the provider's. */
    private final Map<String, Map<Dimension, Long>> models = new LinkedHashMap<>();
    private double headroom = DEFAULT_HEADROOM;
    private double burst = DEFAULT_BURST;
    /** The longest wait and lease: a permit's expiry (now + wait + lease) then fits any clock's milliseconds. */
    private static final Duration LONGEST = Duration.ofDays(1);

    private Duration maxWait = DEFAULT_MAX_WAIT;
    private ProviderSettings.StoreKind store = ProviderSettings.StoreKind.MEMORY;
    private long expectedOutputTokens = DEFAULT_EXPECTED_OUTPUT_TOKENS;
    private Duration lease = DEFAULT_LEASE;

    public ProviderBuilder(String name) {
        if (name.isEmpty() || name.indexOf('.') >= 0) {
            throw new IllegalArgumentException("A provider name is not empty and has no '.': " + name);
        }
        this.name = name;
    }

    /** The calls it governs: every URL that starts with it (a trailing {@code /} is ignored). */
    public ProviderBuilder baseUrl(String url) {
        this.baseUrl = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        return this;
    }

    /** Requests per minute of each model without its own limits; 0 for none. */
    public ProviderBuilder rpm(long rpm) {
        return limit(Dimension.REQUESTS, rpm);
    }

    /** Tokens (input and output together) per minute of each model without its own limits; 0 for none. */
    public ProviderBuilder tpm(long tpm) {
        return limit(Dimension.TOKENS, tpm);
    }

    /** Input tokens per minute of each model without its own limits; 0 for none. */
    public ProviderBuilder itpm(long itpm) {
        return limit(Dimension.INPUT_TOKENS, itpm);
    }

    /** Output tokens per minute of each model without its own limits; 0 for none. */
    public ProviderBuilder otpm(long otpm) {
        return limit(Dimension.OUTPUT_TOKENS, otpm);
    }

    /** One dimension's per-minute limit of each model without its own; 0 for none. */
    public ProviderBuilder limit(Dimension dimension, long perMinute) {
        limits.put(dimension, perMinute);
        return this;
    }

    /** One model's RPM and TPM; -1 keeps the provider's figure for that dimension. */
    public ProviderBuilder model(String model, long rpm, long tpm) {
        if (rpm >= 0) {
            model(model, Dimension.REQUESTS, rpm);
        }
        if (tpm >= 0) {
            model(model, Dimension.TOKENS, tpm);
        }
        return this;
    }

    /** One model's per-minute limit of one dimension; the dimensions it does not name keep the provider's. */
    public ProviderBuilder model(String model, Dimension dimension, long perMinute) {
        models.computeIfAbsent(model, m -> new EnumMap<>(Dimension.class)).put(dimension, perMinute);
        return this;
    }

    public ProviderBuilder headroom(double headroom) {
        this.headroom = headroom;
        return this;
    }

    public ProviderBuilder burst(double burst) {
        this.burst = burst;
        return this;
    }

    public ProviderBuilder maxWait(Duration maxWait) {
        this.maxWait = maxWait;
        return this;
    }

    public ProviderBuilder store(ProviderSettings.StoreKind store) {
        this.store = store;
        return this;
    }

    public ProviderBuilder expectedOutputTokens(long tokens) {
        this.expectedOutputTokens = tokens;
        return this;
    }

    public ProviderBuilder lease(Duration lease) {
        this.lease = lease;
        return this;
    }

    public ProviderSettings build() {
        if (maxWait.isNegative() || maxWait.compareTo(LONGEST) > 0) {
            throw new IllegalArgumentException("max-wait is 0 to 1 day: " + maxWait);
        }
        if (lease.isNegative() || lease.isZero() || lease.compareTo(LONGEST) > 0) {
            throw new IllegalArgumentException("lease is above 0 and at most 1 day: " + lease);
        }
        if (expectedOutputTokens < 0) {
            throw new IllegalArgumentException("expected-output-tokens is 0 or more: " + expectedOutputTokens);
        }
        Map<String, BucketLimits> perModel = new LinkedHashMap<>();
        models.forEach((model, own) -> {
            Map<Dimension, Long> merged = new EnumMap<>(Dimension.class);
            merged.putAll(limits);
            merged.putAll(own);
            perModel.put(model, bucketLimits(merged));
        });
        return new ProviderSettings(name, baseUrl, bucketLimits(limits), perModel,
                maxWait, store, expectedOutputTokens, lease);
    }

    private BucketLimits bucketLimits(Map<Dimension, Long> perMinute) {
        return new BucketLimits(perMinute.getOrDefault(Dimension.REQUESTS, 0L), perMinute.getOrDefault(Dimension.TOKENS, 0L),
                perMinute.getOrDefault(Dimension.INPUT_TOKENS, 0L), perMinute.getOrDefault(Dimension.OUTPUT_TOKENS, 0L),
                headroom, burst);
    }
}
