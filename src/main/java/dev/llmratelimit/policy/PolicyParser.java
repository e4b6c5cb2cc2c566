package dev.llmratelimit.policy;

import dev.llmratelimit.engine.RateLimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Builds a {@link RateLimitPolicy} from flat properties ({@code llm.ratelimit.*}), validating every
 * value. Properties of other parts (store, paths, principals, ...) are left alone.
 */
public final class PolicyParser {

    public static final String PREFIX = "llm.ratelimit.";

    private static final String DEFAULT_EXPECTED_OUTPUT_TOKENS = "256";

    private final Map<String, String> properties;

    private PolicyParser(Map<String, String> properties) {
        this.properties = properties;
    }

    public static RateLimitPolicy parse(Map<String, String> properties) {
        return new PolicyParser(properties).parse();
    }

    private RateLimitPolicy parse() {
        double threshold = globalFraction("saturation-threshold", "0.50");
        double defaultShare = globalFraction("default-priority", "0.25");
        long expectedOutput = ModelGroupBuilder.tokens(PREFIX + "expected-output-tokens",
                value("expected-output-tokens", DEFAULT_EXPECTED_OUTPUT_TOKENS));
        String minOutput = value("expected-output-min-tokens", null);
        Long expectedOutputMin = minOutput == null ? null
                : ModelGroupBuilder.tokens(PREFIX + "expected-output-min-tokens", minOutput);
        String windowText = value("window", "60s");
        Duration window = Duration.ofMillis(LimitNames.windowMillis(PREFIX + "window", windowText, windowText));
        Fairness fairness = choice("fairness", "saturation", Fairness.class);
        Map<String, Reservation> globalReservations = new TreeMap<>();
        Map<String, ModelGroupBuilder> groups = new TreeMap<>();
        for (Map.Entry<String, String> entry : properties.entrySet()) {
            if (!entry.getKey().startsWith(PREFIX)) {
                continue;
            }
            List<String> segments = PropertyNames.segments(entry.getKey().substring(PREFIX.length()));
            if (segments.size() == 2 && segments.get(0).equals("reservation")) {
                globalReservations.put(checkedPriority(entry.getKey(), segments.get(1)),
                        Reservation.parse(entry.getKey(), entry.getValue()));
            } else if (segments.get(0).equals("models")) {
                if (segments.size() < 3) {
                    throw new PolicyException(entry.getKey(), entry.getValue(),
                            "expected llm.ratelimit.models.<model>.rpm|tpm|saturation-threshold|expected-output-tokens|reservation.<priority>");
                }
                groups.computeIfAbsent(segments.get(1), ModelGroupBuilder::new)
                        .set(entry.getKey(), segments.subList(2, segments.size()), entry.getValue());
            }
        }
        Map<String, ModelPolicy> models = new LinkedHashMap<>();
        for (ModelGroupBuilder builder : groups.values()) {
            ModelGroup group = builder.build();
            if (group.isLimited()) {
                models.put(group.name(), resolve(group, window.toMillis(), globalReservations, threshold, defaultShare,
                        expectedOutput, expectedOutputMin, fairness));
            }
        }
        return new RateLimitPolicy(models, window,
                choice("window-mode", "fixed", WindowMode.class),
                choice("rate-limit-type", "total", RateLimitType.class),
                choice("token-admission", "recorded", TokenAdmission.class),
                choice("mode", "enforce", EnforcementMode.class),
                choice("on-store-failure", "fail-open", StoreFailureMode.class),
                bool("reject-unknown-models", "false"));
    }

    private static ModelPolicy resolve(ModelGroup group, long windowMillis, Map<String, Reservation> globalReservations,
                                       double globalThreshold, double defaultShare, long expectedOutput,
                                       Long expectedOutputMin, Fairness globalFairness) {
        String modelPrefix = PREFIX + "models." + PropertyNames.quote(group.name()) + ".";
        Map<String, Double> shares = new HashMap<>();
        globalReservations.forEach((priority, reservation) ->
                shares.put(priority, reservation.share(PREFIX + "reservation." + priority, group)));
        group.reservations().forEach((priority, reservation) ->
                shares.put(priority, reservation.share(modelPrefix + "reservation." + priority, group)));
        double sum = shares.values().stream().mapToDouble(Double::doubleValue).sum();
        if (sum > 1.0) {
            shares.replaceAll((priority, share) -> share / sum);
        }
        double threshold = group.saturationThreshold() != null ? group.saturationThreshold() : globalThreshold;
        long expected = group.expectedOutputTokens() != null ? group.expectedOutputTokens() : expectedOutput;
        List<RateLimit> limits = group.limits().stream().map(limit -> LimitNames.normalized(limit, windowMillis)).toList();
        return new ModelPolicy(group.name(), limits, threshold, shares, defaultShare, expected,
                expectedOutputMin != null ? expectedOutputMin : expected,
                group.fairness() != null ? group.fairness() : globalFairness);
    }

    private static String checkedPriority(String property, String priority) {
        if (priority.isEmpty() || priority.equals(ModelPolicy.DEFAULT_POOL)) {
            throw new PolicyException(property, priority,
                    "'" + priority + "' is not a priority name; the default pool's share is llm.ratelimit.default-priority");
        }
        return priority;
    }

    private String value(String name, String defaultValue) {
        String value = properties.get(PREFIX + name);
        return value == null ? defaultValue : value.trim();
    }

    private double globalFraction(String name, String defaultValue) {
        return fraction(PREFIX + name, value(name, defaultValue));
    }

    static double fraction(String property, String text) {
        double value;
        try {
            value = Double.parseDouble(text.trim());
        } catch (NumberFormatException e) {
            throw new PolicyException(property, text, "not a number");
        }
        if (!(value >= 0.0 && value <= 1.0)) {
            throw new PolicyException(property, text, "must lie between 0 and 1");
        }
        return value;
    }

    private boolean bool(String name, String defaultValue) {
        String text = value(name, defaultValue).toLowerCase(Locale.ROOT);
        if (!text.equals("true") && !text.equals("false")) {
            throw new PolicyException(PREFIX + name, text, "expected true or false");
        }
        return Boolean.parseBoolean(text);
    }

    private <E extends Enum<E>> E choice(String name, String defaultValue, Class<E> type) {
        return choiceOf(PREFIX + name, value(name, defaultValue), type);
    }

    static <E extends Enum<E>> E choiceOf(String property, String text, Class<E> type) {
        for (E constant : type.getEnumConstants()) {
            if (constant.name().replace('_', '-').equalsIgnoreCase(text)) {
                return constant;
            }
        }
        StringBuilder allowed = new StringBuilder();
        for (E constant : type.getEnumConstants()) {
            allowed.append(allowed.length() == 0 ? "" : ", ").append(constant.name().replace('_', '-').toLowerCase(Locale.ROOT));
        }
        throw new PolicyException(property, text, "expected one of " + allowed);
    }

    /** Collects the properties of one model before they are validated together. */
    private static final class ModelGroupBuilder {
        private final String name;
        private final List<RateLimit> limits = new ArrayList<>();
        private Double threshold;
        private Long expectedOutputTokens;
        private Fairness fairness;
        private final Map<String, Reservation> reservations = new TreeMap<>();

        ModelGroupBuilder(String name) {
            this.name = name;
        }

        void set(String property, List<String> rest, String value) {
            String key = rest.get(0);
            if (InsteadOfRefusalParser.MODEL_SETTINGS.contains(key)) {
                return;
            }
            if (LimitNames.isLimitName(rest, "")) {
                limits.add(LimitNames.parse(rest, "", property, value, capacity(property, value)));
            } else if (rest.size() == 1 && key.equals("saturation-threshold")) {
                threshold = fraction(property, value);
            } else if (rest.size() == 1 && key.equals("expected-output-tokens")) {
                expectedOutputTokens = tokens(property, value);
            } else if (rest.size() == 1 && key.equals("fairness")) {
                fairness = choiceOf(property, value.trim(), Fairness.class);
            } else if (rest.size() == 2 && key.equals("reservation")) {
                reservations.put(checkedPriority(property, rest.get(1)), Reservation.parse(property, value));
            } else {
                throw new PolicyException(property, value,
                        "unknown model setting (expected " + String.join(", ", LimitNames.SHORT_NAMES)
                                + ", limits.<dimension>.<duration>,"
                                + " saturation-threshold, fairness, expected-output-tokens, reservation.<priority>, fallbacks or max-wait)");
            }
        }

        private static long capacity(String property, String value) {
            long parsed = wholeNumber(property, value);
            if (parsed <= 0) {
                throw new PolicyException(property, value, "must be at least 1 (leave it out for no limit)");
            }
            return parsed;
        }

        static long tokens(String property, String value) {
            long parsed = wholeNumber(property, value);
            if (parsed < 0) {
                throw new PolicyException(property, value, "must be 0 or more");
            }
            return parsed;
        }

        private static long wholeNumber(String property, String value) {
            try {
                return Long.parseLong(value.trim());
            } catch (NumberFormatException e) {
                throw new PolicyException(property, value, "expected a whole number");
            }
        }

        ModelGroup build() {
            return new ModelGroup(name, limits, threshold, reservations, expectedOutputTokens, fairness);
        }
    }
}
