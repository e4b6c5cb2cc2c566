package dev.llmratelimit.outbound;

import java.util.Objects;

/** Which pair of buckets: providers limit each model separately. */
public record BucketKey(String provider, String model) {

    public BucketKey {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(model, "model");
    }
}
