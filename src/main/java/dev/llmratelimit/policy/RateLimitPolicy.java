package dev.llmratelimit.policy;

import java.time.Duration;
import java.util.Map;

/** The whole validated policy: every limited model and the settings shared by all of them. */
public record RateLimitPolicy(Map<String, ModelPolicy> models, Duration window, WindowMode windowMode,
                              RateLimitType rateLimitType, TokenAdmission tokenAdmission,
                              EnforcementMode mode, StoreFailureMode onStoreFailure,
                              boolean rejectUnknownModels) {

    public RateLimitPolicy {
        models = Map.copyOf(models);
    }

    public ModelPolicy model(String name) {
        return models.get(name);
    }
}
