package dev.llmratelimit.policy;

import java.util.List;
import java.util.Map;

/**
 * The models that may serve a request when its own model refuses it ({@code models.<m>.fallbacks},
 * and per pool {@code models.<m>.fallbacks.<priority>}), in the order they are tried.
 *
 * @param chains per model, per pool name (or {@link #ANY_POOL}), the fallback models
 */
public record FallbackPolicy(Map<String, Map<String, List<String>>> chains) {

    /** The pool key of {@code models.<m>.fallbacks}, which applies to every pool without its own chain. */
    public static final String ANY_POOL = "";

    public static final FallbackPolicy NONE = new FallbackPolicy(Map.of());

    public FallbackPolicy {
        chains = Map.copyOf(chains);
    }

    /** The fallbacks of a request for {@code model} by a caller in {@code pool}; empty when there are none. */
    public List<String> chain(String model, String pool) {
        Map<String, List<String>> byPool = chains.get(model);
        if (byPool == null) {
            return List.of();
        }
        List<String> own = byPool.get(pool);
        return own != null ? own : byPool.getOrDefault(ANY_POOL, List.of());
    }
}
