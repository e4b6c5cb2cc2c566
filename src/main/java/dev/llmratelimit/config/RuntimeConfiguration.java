package dev.llmratelimit.config;

import dev.llmratelimit.budget.BudgetPolicy;
import dev.llmratelimit.identity.CallerLimitPolicy;
import dev.llmratelimit.identity.CallerResolver;
import dev.llmratelimit.identity.CallerResolvers;
import dev.llmratelimit.policy.Durations;
import dev.llmratelimit.policy.FallbackPolicy;
import dev.llmratelimit.policy.InsteadOfRefusalParser;
import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.policy.WaitPolicy;
import dev.llmratelimit.store.CircuitBreakerSettings;
import dev.llmratelimit.store.redis.RedisStoreSettings;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * Everything a runtime builds from its properties before it touches a store, validated together:
 * start-up, every reload and the check command refuse exactly the same configurations.
 *
 * @param fallbacks      the fallback models of each model (docs/instead-of-429.md)
 * @param waitPolicy     how long refused requests may wait; {@code null} for a runtime built over a given limiter
 * @param budgets        prices and spend budgets (docs/budgets.md)
 * @param reloadInterval how often the runtime re-reads its configuration; empty: never on its own
 */
public record RuntimeConfiguration(FilterSettings settings, RateLimitPolicy policy, CallerLimitPolicy callerLimits,
                                   CallerResolver callerResolver, FallbackPolicy fallbacks, WaitPolicy waitPolicy,
                                   BudgetPolicy budgets, Optional<Duration> reloadInterval) {

    public static final String RELOAD_INTERVAL = PolicyParser.PREFIX + "reload-interval";

    /**
     * @param applicationResolver the application's own resolver, or {@code null} for the configured one
     * @throws PolicyException naming the property and the value that were refused
     */
    public static RuntimeConfiguration parse(Map<String, String> properties, CallerResolver applicationResolver) {
        FilterSettings settings = FilterSettings.parse(properties);
        RateLimitPolicy policy = PolicyParser.parse(properties);
        CallerLimitPolicy callerLimits = CallerLimitPolicy.parse(properties, policy.window());
        CallerResolver resolver = applicationResolver != null ? applicationResolver : CallerResolvers.create(properties);
        if (settings.store().equals("redis")) {
            RedisStoreSettings.parse(properties);
            CircuitBreakerSettings.parse(properties);
        }
        BudgetStores.check(properties, settings.store());
        return new RuntimeConfiguration(settings, policy, callerLimits, resolver,
                InsteadOfRefusalParser.fallbacks(properties, policy), InsteadOfRefusalParser.waiting(properties, policy),
                BudgetPolicy.parse(properties), reloadInterval(properties));
    }

    private static Optional<Duration> reloadInterval(Map<String, String> properties) {
        String text = properties.get(RELOAD_INTERVAL);
        if (text == null || text.isBlank()) {
            return Optional.empty();
        }
        Duration interval = Durations.parse(RELOAD_INTERVAL, text);
        if (interval.isZero() || interval.isNegative()) {
            throw new PolicyException(RELOAD_INTERVAL, text, "expected a duration above zero, such as 30s (leave it out for no reload)");
        }
        return Optional.of(interval);
    }
}
