package dev.llmratelimit.policy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads what a refused request may get instead of a 429 (docs/instead-of-429.md): fallback models and
 * bounded waiting. Needs the parsed {@link RateLimitPolicy}: a fallback must be a limited model.
 */
public final class InsteadOfRefusalParser {

    /** The model settings this parser owns, which {@link PolicyParser} leaves alone. */
    static final Set<String> MODEL_SETTINGS = Set.of("fallbacks", "max-wait");

    private static final String PREFIX = PolicyParser.PREFIX;

    /** The longest wait or poll interval: the room adds them to the clock's millis, which must not overflow. */
    private static final Duration LONGEST = Duration.ofDays(1);

    private InsteadOfRefusalParser() {
    }

    public static FallbackPolicy fallbacks(Map<String, String> properties, RateLimitPolicy policy) {
        Map<String, Map<String, List<String>>> chains = new HashMap<>();
        forModelSetting(properties, "fallbacks", (property, model, pool, value) -> {
            requireLimited(property, value, model, policy);
            chains.computeIfAbsent(model, m -> new HashMap<>()).put(pool, chain(property, value, model, policy));
        });
        return new FallbackPolicy(chains);
    }

    public static WaitPolicy waiting(Map<String, String> properties, RateLimitPolicy policy) {
        Map<String, Map<String, Duration>> maxWait = new HashMap<>();
        properties.forEach((property, value) -> {
            if (!property.startsWith(PREFIX)) {
                return;
            }
            List<String> segments = PropertyNames.segments(property.substring(PREFIX.length()));
            if (segments.get(0).equals("max-wait") && segments.size() <= 2) {
                maxWait.computeIfAbsent(WaitPolicy.ANY_MODEL, m -> new HashMap<>())
                        .put(segments.size() == 2 ? segments.get(1) : WaitPolicy.ANY_POOL, wait(property, value));
            }
        });
        forModelSetting(properties, "max-wait", (property, model, pool, value) -> {
            requireLimited(property, value, model, policy);
            maxWait.computeIfAbsent(model, m -> new HashMap<>()).put(pool, wait(property, value));
        });
        String waiters = properties.getOrDefault(PREFIX + "max-waiters", "1000").trim();
        String poll = properties.getOrDefault(PREFIX + "wait-poll-interval", "250ms");
        Duration pollInterval = Durations.parse(PREFIX + "wait-poll-interval", poll);
        if (pollInterval.isZero() || pollInterval.isNegative()) {
            throw new PolicyException(PREFIX + "wait-poll-interval", poll, "must be longer than zero");
        }
        requireAtMostADay(PREFIX + "wait-poll-interval", poll, pollInterval);
        int maxWaiters = count(PREFIX + "max-waiters", waiters);
        String perCaller = properties.get(PREFIX + "max-waiters-per-caller");
        String bytes = properties.get(PREFIX + "max-waiting-bytes");
        return new WaitPolicy(maxWait, maxWaiters,
                bytes == null ? WaitPolicy.DEFAULT_MAX_WAITING_BYTES : ByteSizes.parse(PREFIX + "max-waiting-bytes", bytes),
                perCaller == null ? WaitPolicy.defaultMaxWaitersPerCaller(maxWaiters)
                        : count(PREFIX + "max-waiters-per-caller", perCaller.trim()),
                pollInterval, names(properties.getOrDefault(PREFIX + "priority-order", "")));
    }

    private interface ModelSetting {
        void accept(String property, String model, String pool, String value);
    }

    /** Every {@code models.<m>.<setting>} and {@code models.<m>.<setting>.<priority>}. */
    private static void forModelSetting(Map<String, String> properties, String setting, ModelSetting action) {
        properties.forEach((property, value) -> {
            if (!property.startsWith(PREFIX + "models.")) {
                return;
            }
            List<String> segments = PropertyNames.segments(property.substring(PREFIX.length()));
            if (segments.size() >= 3 && segments.size() <= 4 && segments.get(2).equals(setting)) {
                action.accept(property, segments.get(1), segments.size() == 4 ? segments.get(3) : FallbackPolicy.ANY_POOL,
                        value);
            } else if (segments.size() > 4 && segments.get(2).equals(setting)) {
                throw new PolicyException(property, value,
                        "expected llm.ratelimit.models.<model>." + setting + "[.<priority>]");
            }
        });
    }

    private static void requireLimited(String property, String value, String model, RateLimitPolicy policy) {
        if (policy.model(model) == null) {
            throw new PolicyException(property, value, "model '" + model + "' has no rpm or tpm configured");
        }
    }

    private static List<String> chain(String property, String value, String model, RateLimitPolicy policy) {
        List<String> chain = names(value);
        if (new LinkedHashSet<>(chain).size() != chain.size()) {
            throw new PolicyException(property, value, "a fallback chain names a model twice");
        }
        for (String fallback : chain) {
            if (fallback.equals(model)) {
                throw new PolicyException(property, value, "a model cannot be its own fallback (a cycle)");
            }
            if (policy.model(fallback) == null) {
                throw new PolicyException(property, value,
                        "fallback model '" + fallback + "' is not configured (it needs an rpm or tpm)");
            }
        }
        return chain;
    }

    private static List<String> names(String value) {
        return new ArrayList<>(Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList());
    }

    private static Duration wait(String property, String value) {
        Duration wait = Durations.parse(property, value);
        if (wait.isNegative()) {
            throw new PolicyException(property, value, "must be 0 or more");
        }
        requireAtMostADay(property, value, wait);
        return wait;
    }

    private static void requireAtMostADay(String property, String value, Duration duration) {
        if (duration.compareTo(LONGEST) > 0) {
            throw new PolicyException(property, value, "must be at most 1 day (PT24H)");
        }
    }

    private static int count(String property, String value) {
        try {
            int parsed = Integer.parseInt(value);
            if (parsed >= 0) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new PolicyException(property, value, "expected a whole number >= 0");
    }
}
