package dev.llmratelimit.outbound;

import dev.llmratelimit.config.MicroProfileProperties;
import dev.llmratelimit.policy.Durations;
import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.store.redis.RedisStoreSettings;
import org.eclipse.microprofile.config.Config;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads {@code llm.ratelimit.outbound.<provider>.*} into an {@link OutboundLimiter}; providers on
 * the redis store reach Redis through {@code llm.ratelimit.redis.*}, the settings the filter uses. Every
 * invalid value fails here, with a message naming the property.
 */
public final class OutboundLimiters {

    public static final String PREFIX = "llm.ratelimit.outbound.";
    private static final String MODELS = "models.";
    /** The per-minute limits by their short names. */
    private static final Map<String, Dimension> DIMENSIONS = Map.of("rpm", Dimension.REQUESTS, "tpm", Dimension.TOKENS,
            "itpm", Dimension.INPUT_TOKENS, "otpm", Dimension.OUTPUT_TOKENS);

    private OutboundLimiters() {
    }

    /** From the application's MicroProfile Config. */
    public static OutboundLimiter fromConfig(Config config) {
        return fromProperties(MicroProfileProperties.read(config));
    }

    public static OutboundLimiter fromProperties(Map<String, String> properties) {
        return configure(OutboundLimiter.builder(), properties).build();
    }

    /** Adds the providers the properties name (tests add a clock or a store first). */
    public static OutboundLimiterBuilder configure(OutboundLimiterBuilder builder, Map<String, String> properties) {
        Map<String, Map<String, String>> byProvider = new LinkedHashMap<>();
        new TreeMap<>(properties).forEach((name, value) -> {
            if (name.startsWith(PREFIX)) {
                String rest = name.substring(PREFIX.length());
                int dot = rest.indexOf('.');
                if (dot <= 0) {
                    throw new PolicyException(name, value, "expected " + PREFIX + "<provider>.<setting>");
                }
                byProvider.computeIfAbsent(rest.substring(0, dot), p -> new LinkedHashMap<>())
                        .put(rest.substring(dot + 1), value);
            }
        });
        boolean usesRedis = false;
        for (Map.Entry<String, Map<String, String>> provider : byProvider.entrySet()) {
            ProviderSettings settings = provider(provider.getKey(), provider.getValue());
            usesRedis |= settings.store() == ProviderSettings.StoreKind.REDIS;
            builder.provider(settings);
        }
        if (usesRedis) {
            builder.redis(RedisStoreSettings.parse(properties));
        }
        return builder;
    }

    private static ProviderSettings provider(String provider, Map<String, String> settings) {
        ProviderBuilder builder = new ProviderBuilder(provider);
        String prefix = PREFIX + provider + ".";
        settings.forEach((setting, value) -> {
            String property = prefix + setting;
            if (setting.startsWith(MODELS)) {
                model(builder, property, setting.substring(MODELS.length()), value);
                return;
            }
            switch (setting) {
                case "base-url" -> builder.baseUrl(url(property, value));
                case "rpm", "tpm", "itpm", "otpm" -> builder.limit(DIMENSIONS.get(setting), limit(property, value));
                case "headroom" -> builder.headroom(share(property, value));
                case "burst" -> builder.burst(positive(property, value));
                case "max-wait" -> builder.maxWait(duration(property, value, true));
                case "lease" -> builder.lease(duration(property, value, false));
                case "expected-output-tokens" -> builder.expectedOutputTokens(limit(property, value));
                case "store" -> builder.store(store(property, value));
                default -> throw new PolicyException(property, value, "unknown setting; expected base-url, rpm, tpm, itpm, otpm, "
                        + "models.<model>.rpm|tpm|itpm|otpm, headroom, burst, max-wait, store, expected-output-tokens or lease");
            }
        });
        return builder.build();
    }

    /** {@code <model>.rpm}, {@code .tpm}, {@code .itpm} or {@code .otpm}; the model may be in double quotes, and may contain dots. */
    private static void model(ProviderBuilder builder, String property, String rest, String value) {
        int dot = rest.lastIndexOf('.');
        String model = dot > 0 ? rest.substring(0, dot) : "";
        if (model.length() >= 2 && model.startsWith("\"") && model.endsWith("\"")) {
            model = model.substring(1, model.length() - 1);
        }
        String dimension = dot > 0 ? rest.substring(dot + 1) : rest;
        if (model.isEmpty() || !DIMENSIONS.containsKey(dimension)) {
            throw new PolicyException(property, value, "expected models.<model>.rpm, .tpm, .itpm or .otpm");
        }
        builder.model(model, DIMENSIONS.get(dimension), limit(property, value));
    }

    private static String url(String property, String value) {
        String url = value.trim();
        if (!(url.startsWith("http://") || url.startsWith("https://"))) {
            throw new PolicyException(property, value, "expected an http:// or https:// URL");
        }
        return url;
    }

    private static long limit(String property, String value) {
        try {
            long limit = Long.parseLong(value.trim());
            if (limit >= 0) {
                return limit;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new PolicyException(property, value, "expected a whole number, 0 or more");
    }

    private static double share(String property, String value) {
        double share = number(property, value);
        if (share > 0 && share <= 1) {
            return share;
        }
        throw new PolicyException(property, value, "expected a number above 0 and at most 1, such as 0.9");
    }

    private static double positive(String property, String value) {
        double number = number(property, value);
        if (number > 0 && number <= 1_000) {
            return number;
        }
        throw new PolicyException(property, value, "expected a number above 0 (and at most 1000), such as 1.0");
    }

    private static double number(String property, String value) {
        try {
            double number = Double.parseDouble(value.trim());
            if (Double.isFinite(number)) {
                return number;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new PolicyException(property, value, "expected a number");
    }

    private static Duration duration(String property, String value, boolean zeroAllowed) {
        Duration duration = Durations.parse(property, value);
        if (duration.isNegative() || (!zeroAllowed && duration.isZero())) {
            throw new PolicyException(property, value, zeroAllowed ? "expected a duration, 0 or more" : "expected a duration above zero");
        }
        return duration;
    }

    private static ProviderSettings.StoreKind store(String property, String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "memory" -> ProviderSettings.StoreKind.MEMORY;
            case "redis" -> ProviderSettings.StoreKind.REDIS;
            default -> throw new PolicyException(property, value, "expected memory or redis");
        };
    }
}
