package dev.llmratelimit.config;

import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.store.CircuitBreakerSettings;
import dev.llmratelimit.store.redis.RedisStoreSettings;

import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The properties a reload cannot apply: which store holds the counters, how it is reached, and the
 * reload interval itself. A reload applies everything else and says which of these wait for a restart.
 */
final class RestartOnlyProperties {

    private static final System.Logger LOG = System.getLogger(RateLimitRuntime.class.getName());

    private static final Set<String> NAMES = Set.of(PolicyParser.PREFIX + "store", RuntimeConfiguration.RELOAD_INTERVAL,
            CircuitBreakerSettings.FAILURE_THRESHOLD, CircuitBreakerSettings.BACKOFF);

    private RestartOnlyProperties() {
    }

    static void warnIfChanged(Map<String, String> running, Map<String, String> next) {
        Set<String> changed = new TreeSet<>();
        Set<String> names = new TreeSet<>(running.keySet());
        names.addAll(next.keySet());
        for (String name : names) {
            if (isRestartOnly(name) && !Objects.equals(running.get(name), next.get(name))) {
                changed.add(name);
            }
        }
        if (!changed.isEmpty()) {
            LOG.log(Level.WARNING, "Changed, but applied only after a restart: " + String.join(", ", changed));
        }
    }

    private static boolean isRestartOnly(String name) {
        return NAMES.contains(name) || name.startsWith(RedisStoreSettings.PREFIX);
    }
}
