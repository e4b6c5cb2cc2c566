package dev.llmratelimit.identity;

import dev.llmratelimit.budget.ScopeBudget;
import dev.llmratelimit.engine.CallerCounter;
import dev.llmratelimit.engine.CallerPlan;
import dev.llmratelimit.engine.CallerScope;
import dev.llmratelimit.policy.Durations;
import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.policy.PropertyNames;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Turns a {@link Caller} into the {@link CallerPlan} its request must pass: the caller's own limits,
 * each missing one filled from {@code llm.ratelimit.defaults.<scope>.<limit>} for every scope the
 * caller has an identity in (key: principal name, user, team). An anonymous caller has none.
 */
public record CallerLimitPolicy(CallerLimits defaults, long windowMillis, long leaseMillis) {

    public static final String DEFAULTS = PolicyParser.PREFIX + "defaults.";
    public static final String PARALLEL_LEASE = PolicyParser.PREFIX + "parallel-lease";
    public static final String DEFAULT_PARALLEL_LEASE = "10m";

    private static final CallerScope[] SCOPES = CallerScope.values();

    /** @throws PolicyException for an unknown scope or limit, an invalid limit or lease */
    public static CallerLimitPolicy parse(Map<String, String> properties, Duration window) {
        ScopeLimits[] defaults = {ScopeLimits.NONE, ScopeLimits.NONE, ScopeLimits.NONE};
        for (Map.Entry<String, String> entry : properties.entrySet()) {
            if (!entry.getKey().startsWith(DEFAULTS)) {
                continue;
            }
            List<String> segments = PropertyNames.segments(entry.getKey().substring(DEFAULTS.length()));
            if (segments.size() >= 2 && scopeNamed(segments.get(0)) != null
                    && ScopeBudget.isBudgetSetting(segments.subList(1, segments.size()))) {
                continue;                                   // a default budget: BudgetPolicy reads it
            }
            CallerScope scope = segments.size() >= 2 ? scopeNamed(segments.get(0)) : null;
            List<String> setting = segments.subList(1, segments.size());
            if (scope == null || !ScopeLimits.isLimitName(setting)) {
                throw new PolicyException(entry.getKey(), entry.getValue(), "expected " + DEFAULTS
                        + "key|user|team.rpm-limit|tpm-limit|max-parallel-requests (or itpm-limit, otpm-limit, rpd-limit,"
                        + " tpd-limit, limits.<dimension>.<duration>)");
            }
            int i = scope.ordinal();
            defaults[i] = defaults[i].with(setting, entry.getKey(), entry.getValue());
        }
        String leaseText = properties.getOrDefault(PARALLEL_LEASE, DEFAULT_PARALLEL_LEASE);
        Duration lease = Durations.parse(PARALLEL_LEASE, leaseText);
        if (lease.toMillis() <= 0) {
            throw new PolicyException(PARALLEL_LEASE, leaseText, "the lease must be at least 1ms");
        }
        return new CallerLimitPolicy(new CallerLimits(defaults[0], defaults[1], defaults[2]),
                window.toMillis(), lease.toMillis());
    }

    /** The plan of the caller's request, or {@code null} when no caller limit applies to it. */
    public CallerPlan planFor(Caller caller) {
        if (caller.principal() == null || (caller.limits().isEmpty() && defaults.isEmpty())) {
            return null;
        }
        List<CallerCounter> counters = null;
        for (CallerScope scope : SCOPES) {
            String id = identity(caller, scope);
            if (id == null) {
                continue;
            }
            ScopeLimits limits = caller.limits().of(scope).orElse(defaults.of(scope));
            if (!limits.isEmpty()) {
                if (counters == null) {
                    counters = new ArrayList<>(3);
                }
                counters.add(new CallerCounter(scope, id, limits.limits(), limits.maxParallelRequests()));
            }
        }
        return counters == null ? null : new CallerPlan(counters, windowMillis, leaseMillis);
    }

    private static String identity(Caller caller, CallerScope scope) {
        return switch (scope) {
            case KEY -> caller.principal();
            case USER -> caller.user();
            case TEAM -> caller.team();
        };
    }

    private static CallerScope scopeNamed(String name) {
        for (CallerScope scope : SCOPES) {
            if (scope.label().equals(name)) {
                return scope;
            }
        }
        return null;
    }
}
