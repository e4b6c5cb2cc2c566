package dev.llmratelimit.config;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The LiteLLM {@code config.yaml} keys the rate limiter reads, per level. A key the file holds that
 * is not read but lies within two edits of one that is (such as {@code priority_reservations}) is
 * most likely that key mistyped, and said so.
 */
final class LiteLlmKeys {

    private static final int NEAR = 2;
    private static final Map<String, List<String>> READ = Map.of(
            "", List.of("model_list", "litellm_settings"),
            "model_list[].", List.of("model_name", "litellm_params"),
            "model_list[].litellm_params.", List.of("rpm", "tpm", "itpm", "otpm"),
            "litellm_settings.", List.of("priority_reservation", "priority_reservation_settings"),
            "litellm_settings.priority_reservation_settings.",
            List.of("default_priority", "saturation_threshold", "saturation_check_cache_ttl"));

    private LiteLlmKeys() {
    }

    /** For an ignored key path such as {@code litellm_settings.priority_reservations}: the read key it is near, if any. */
    static Optional<String> near(String path) {
        int dot = path.lastIndexOf('.');
        String level = path.substring(0, dot + 1);
        String key = path.substring(dot + 1);
        return READ.getOrDefault(level, List.of()).stream()
                .filter(known -> key.length() > 3 && EditDistance.between(key, known) <= NEAR)
                .findFirst().map(known -> level + known);
    }
}
