package dev.llmratelimit.config;

import dev.llmratelimit.http.ErrorStyle;
import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.usage.EndpointShape;

import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The servlet-side settings: which paths are protected and their endpoint shapes ({@link ProtectedPaths}),
 * how large a body may be, whether streamed
 * requests get {@code stream_options.include_usage}, which store holds the counters, and the shape of
 * a 429 body.
 */
public record FilterSettings(boolean enabled, Map<String, EndpointShape> pathShapes, long maxBodySize,
                             boolean injectStreamUsage, String store, ErrorStyle errorStyle) {

    /** The default {@code llm.ratelimit.paths}: every shape's {@code /v1/...} path, each also without {@code /v1}. */
    public static final String DEFAULT_PATHS = ProtectedPaths.defaultPaths();

    /** The protected paths. */
    public Set<String> paths() {
        return pathShapes.keySet();
    }

    public static FilterSettings parse(Map<String, String> properties) {
        String prefix = PolicyParser.PREFIX;
        Map<String, EndpointShape> paths = ProtectedPaths.parse(properties);
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
