package dev.llmratelimit.config;

import dev.llmratelimit.http.ErrorStyle;
import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.policy.PolicyParser;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The servlet-side settings: which paths are protected, how large a body may be, whether streamed
 * requests get {@code stream_options.include_usage}, which store holds the counters, and the shape of
 * a 429 body.
 */
public record FilterSettings(boolean enabled, Set<String> paths, long maxBodySize,
                             boolean injectStreamUsage, String store, ErrorStyle errorStyle) {

    public static final String DEFAULT_PATHS = "/v1/chat/completions,/chat/completions";

    public static FilterSettings parse(Map<String, String> properties) {
        String prefix = PolicyParser.PREFIX;
        Set<String> paths = Arrays.stream(properties.getOrDefault(prefix + "paths", DEFAULT_PATHS).split(","))
                .map(String::trim).filter(path -> !path.isEmpty()).collect(Collectors.toUnmodifiableSet());
        String store = properties.getOrDefault(prefix + "store", "memory").trim().toLowerCase(Locale.ROOT);
        if (!store.equals("memory") && !store.equals("redis")) {
            throw new PolicyException(prefix + "store", store, "expected one of memory, redis");
        }
        return new FilterSettings(
                bool(properties, prefix + "enabled", true),
                paths,
                ByteSizes.parse(prefix + "max-body-size", properties.getOrDefault(prefix + "max-body-size", "4MiB")),
                bool(properties, prefix + "inject-stream-usage", true),
                store,
                ErrorStyle.parse(prefix + ErrorStyle.PROPERTY, properties.getOrDefault(prefix + ErrorStyle.PROPERTY, "litellm")));
    }

    private static boolean bool(Map<String, String> properties, String property, boolean defaultValue) {
        String text = properties.get(property);
        if (text == null) {
            return defaultValue;
        }
        String value = text.trim().toLowerCase(Locale.ROOT);
        if (!value.equals("true") && !value.equals("false")) {
            throw new PolicyException(property, text, "expected true or false");
        }
        return Boolean.parseBoolean(value);
    }
}
