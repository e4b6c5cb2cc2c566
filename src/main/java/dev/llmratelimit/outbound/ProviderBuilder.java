package dev.llmratelimit.outbound;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** One provider's settings, with the defaults of {@code llm.ratelimit.outbound.<provider>.*}. */
public final class ProviderBuilder {

    public static final double DEFAULT_HEADROOM = 0.9;
    public static final double DEFAULT_BURST = 1.0;
    public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(30);
    public static final long DEFAULT_EXPECTED_OUTPUT_TOKENS = 256;
    public static final Duration DEFAULT_LEASE = Duration.ofMinutes(10);

    private record ModelLimits(long rpm, long tpm) {
    }

    private final String name;
    private String baseUrl;
    private long rpm;
    private long tpm;
    private final Map<String, ModelLimits> models = new LinkedHashMap<>();
    private double headroom = DEFAULT_HEADROOM;
    private double burst = DEFAULT_BURST;
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
        this.rpm = rpm;
        return this;
    }

    /** Tokens per minute of each model without its own limits; 0 for none. */
    public ProviderBuilder tpm(long tpm) {
        this.tpm = tpm;
        return this;
    }

    /** One model's limits; -1 keeps the provider's figure for that dimension. */
    public ProviderBuilder model(String model, long rpm, long tpm) {
        ModelLimits old = models.getOrDefault(model, new ModelLimits(-1, -1));
        models.put(model, new ModelLimits(rpm >= 0 ? rpm : old.rpm(), tpm >= 0 ? tpm : old.tpm()));
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
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("max-wait is 0 or more: " + maxWait);
        }
        if (lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("lease is above 0: " + lease);
        }
        if (expectedOutputTokens < 0) {
            throw new IllegalArgumentException("expected-output-tokens is 0 or more: " + expectedOutputTokens);
        }
        Map<String, BucketLimits> perModel = new LinkedHashMap<>();
        models.forEach((model, limits) -> perModel.put(model, new BucketLimits(
                limits.rpm() >= 0 ? limits.rpm() : rpm, limits.tpm() >= 0 ? limits.tpm() : tpm, headroom, burst)));
        return new ProviderSettings(name, baseUrl, new BucketLimits(rpm, tpm, headroom, burst), perModel,
                maxWait, store, expectedOutputTokens, lease);
    }
}
