package dev.llmratelimit.observe;

import dev.llmratelimit.policy.Durations;
import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.policy.PolicyParser;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * Where the status page is served and who may see it.
 *
 * @param path     the HTML page's path inside the application ({@code <path>.json} is its JSON twin);
 *                 {@code null}: no status page (the default)
 * @param role     the role a caller must have ({@code request.isUserInRole}); {@code null} with {@code public}
 * @param refresh  how often the open page reloads its figures
 */
public record StatusSettings(String path, String role, Duration refresh) {

    public static final String DEFAULT_ROLE = "llm-ratelimit-status";
    public static final StatusSettings OFF = new StatusSettings(null, DEFAULT_ROLE, Duration.ofSeconds(5));

    public static StatusSettings parse(Map<String, String> properties) {
        String prefix = PolicyParser.PREFIX + "status.";
        String path = properties.get(prefix + "path");
        if (path == null || path.isBlank()) {
            return OFF;
        }
        path = path.trim();
        if (!path.startsWith("/") || path.endsWith("/") || path.contains("*")) {
            throw new PolicyException(prefix + "path", path, "expected a path such as /llm-ratelimit/status");
        }
        String role = properties.getOrDefault(prefix + "role", DEFAULT_ROLE).trim();
        if (role.isEmpty()) {
            throw new PolicyException(prefix + "role", role, "expected a role name (or status.public=true)");
        }
        String open = properties.getOrDefault(prefix + "public", "false").trim().toLowerCase(Locale.ROOT);
        if (!open.equals("true") && !open.equals("false")) {
            throw new PolicyException(prefix + "public", open, "expected true or false");
        }
        Duration refresh = Durations.parse(prefix + "refresh", properties.getOrDefault(prefix + "refresh", "5s"));
        if (refresh.toMillis() < 100) {
            throw new PolicyException(prefix + "refresh", refresh.toString(), "expected at least 100ms");
        }
        return new StatusSettings(path, open.equals("true") ? null : role, refresh);
    }

    public boolean enabled() {
        return path != null;
    }

    /** The JSON twin's path. */
    public String jsonPath() {
        return path + ".json";
    }
}
