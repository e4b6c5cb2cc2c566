package dev.llmratelimit.policy;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The properties whose values a message, a log line or the status page never quotes: passwords,
 * and addresses that may carry credentials ({@code redis://user:password@host},
 * {@code jdbc:postgresql://host/db?password=...}, a base URL with a key in it).
 */
public final class SecretProperties {

    private static final Set<String> SECRET_SETTINGS = Set.of("password", "address", "url", "base-url");

    private SecretProperties() {
    }

    /** By the name's last segment: {@code llm.ratelimit.redis.password}, {@code llm.ratelimit.budget.jdbc.url}, ... */
    public static boolean mayHoldSecret(String property) {
        List<String> segments = PropertyNames.segments(property);
        return SECRET_SETTINGS.contains(segments.get(segments.size() - 1).toLowerCase(Locale.ROOT));
    }
}
