package dev.llmratelimit.config;

import dev.llmratelimit.http.ErrorStyle;
import dev.llmratelimit.policy.ByteSizes;
import dev.llmratelimit.policy.InternalErrorMode;
import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.usage.EndpointShape;

import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The servlet-side settings: whether the filter and the interceptor limit at all, which paths are
 * protected and their endpoint shapes ({@link ProtectedPaths}), how large a body may be, whether streamed
 * requests get {@code stream_options.include_usage}, which store holds the counters, the shape of
 * a 429 body, and what a request gets when the limiter fails on it.
 *
 * @param filterEnabled      {@code llm.ratelimit.enabled} and {@code llm.ratelimit.filter.enabled}
 * @param interceptorEnabled {@code llm.ratelimit.enabled} and {@code llm.ratelimit.interceptor.enabled}
 * @param onInternalError    {@code llm.ratelimit.on-internal-error}
 */
public record FilterSettings(boolean filterEnabled, boolean interceptorEnabled, Map<String, EndpointShape> pathShapes,
                             long maxBodySize,
                             boolean injectStreamUsage, String store, ErrorStyle errorStyle,
                             InternalErrorMode onInternalError) {

    public static final String ON_INTERNAL_ERROR = PolicyParser.PREFIX + "on-internal-error";

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
        if (store.equals("redis") && !redissonPresent()) {
            throw new PolicyException(prefix + "store", store, "Redisson is not on the application's class path; "
                    + "add org.redisson:redisson (an optional dependency of llm-ratelimit-filter) to the application");
        }
        boolean enabled = bool(properties, prefix + "enabled", true);
        return new FilterSettings(
                bool(properties, prefix + "filter.enabled", true) && enabled,
                bool(properties, prefix + "interceptor.enabled", true) && enabled,
                paths,
                ByteSizes.parse(prefix + "max-body-size", properties.getOrDefault(prefix + "max-body-size", "4MiB")),
                bool(properties, prefix + "inject-stream-usage", true),
                store,
                ErrorStyle.parse(prefix + ErrorStyle.PROPERTY, properties.getOrDefault(prefix + ErrorStyle.PROPERTY, "litellm")),
                onInternalError(properties.getOrDefault(ON_INTERNAL_ERROR, "fail-closed")));
    }

    private static InternalErrorMode onInternalError(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "fail-closed" -> InternalErrorMode.FAIL_CLOSED;
            case "fail-open" -> InternalErrorMode.FAIL_OPEN;
            default -> throw new PolicyException(ON_INTERNAL_ERROR, text, "expected one of fail-closed, fail-open");
        };
    }

    /** Seen from this library's class loader, the one that links the Redis store. */
    private static boolean redissonPresent() {
        try {
            Class.forName("org.redisson.api.RedissonClient", false, FilterSettings.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
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
