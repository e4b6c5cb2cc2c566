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
 * The properties a reload cannot apply: which store holds the counters, how it is reached, the wait
 * room's size and poll interval, and the reload interval itself. A reload applies everything else and says which of these wait for a restart.
 */
final class RestartOnlyProperties {

    private static final System.Logger LOG = System.getLogger(RateLimitRuntime.class.getName());

    private static final Set<String> NAMES = Set.of(PolicyParser.PREFIX + "store", RuntimeConfiguration.RELOAD_INTERVAL,
            CircuitBreakerSettings.FAILURE_THRESHOLD, CircuitBreakerSettings.BACKOFF, CircuitBreakerSettings.PROBE_INTERVAL,
            PolicyParser.PREFIX + "max-waiters", PolicyParser.PREFIX + "wait-poll-interval",
            PolicyParser.PREFIX + "max-waiting-bytes", PolicyParser.PREFIX + "max-waiters-per-caller");

    private RestartOnlyProperties() {
    }

    /** @param waitingSwitchedOn the new configuration lets requests wait, but no wait room was made at start-up */
    static void warnIfChanged(Map<String, String> running, Map<String, String> next, boolean waitingSwitchedOn) {
        Set<String> changed = new TreeSet<>();
        Set<String> names = new TreeSet<>(running.keySet());
        names.addAll(next.keySet());
        for (String name : names) {
            if (isRestartOnly(name) && !Objects.equals(running.get(name), next.get(name))) {
                changed.add(name);
            }
        }
        if (waitingSwitchedOn) {
            changed.add("max-wait (waiting was off at start-up)");
        }
        if (!changed.isEmpty()) {
            LOG.log(Level.WARNING, "Changed, but applied only after a restart: " + String.join(", ", changed));
        }
    }

    private static boolean isRestartOnly(String name) {
        return NAMES.contains(name) || name.startsWith(RedisStoreSettings.PREFIX);
    }
}
