package dev.llmratelimit.identity;

import dev.llmratelimit.engine.CallerCounter;
import dev.llmratelimit.engine.CallerPlan;
import dev.llmratelimit.engine.CallerScope;
import dev.llmratelimit.policy.PolicyException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CallerLimitPolicyTest {

    private static final Duration WINDOW = Duration.ofSeconds(60);

    private static CallerLimitPolicy parse(String... lines) {
        return CallerLimitPolicy.parse(properties(lines), WINDOW);
    }

    @Test
    void withoutLimitsOrDefaultsNoCallerHasAPlan() {
        CallerLimitPolicy policy = parse();
        assertThat(policy.leaseMillis()).isEqualTo(600_000);
        assertThat(policy.planFor(new Caller("alice", "team-a", null, null, "alice@x", CallerLimits.NONE))).isNull();
        assertThat(policy.planFor(Caller.ANONYMOUS)).isNull();
    }

    @Test
    void defaultsFillEachMissingLimitOfEachScopeWithAnIdentity() {
        CallerLimitPolicy policy = parse("defaults.key.rpm-limit=60", "defaults.key.max-parallel-requests=4",
                "defaults.team.tpm-limit=100000", "defaults.user.rpm-limit=120", "parallel-lease=90s");
        Caller caller = new Caller("alice", "team-a", null, null, null,
                new CallerLimits(new ScopeLimits(10, 0, 0), ScopeLimits.NONE, new ScopeLimits(0, 0, 8)));

        CallerPlan plan = policy.planFor(caller);

        assertThat(plan).isEqualTo(new CallerPlan(List.of(
                new CallerCounter(CallerScope.KEY, "alice", 10, 0, 4),
                new CallerCounter(CallerScope.TEAM, "team-a", 0, 100000, 8)), 60_000, 90_000));
        assertThat(policy.planFor(Caller.ANONYMOUS)).isNull();
    }

    @Test
    void aCallersOwnLimitsNeedNoDefaults() {
        CallerPlan plan = parse().planFor(new Caller("k", null, null, null, "u",
                new CallerLimits(ScopeLimits.NONE, new ScopeLimits(0, 500, 0), ScopeLimits.NONE)));

        assertThat(plan.counters()).containsExactly(new CallerCounter(CallerScope.USER, "u", 0, 500, 0));
        assertThat(plan.limitsTokens()).isTrue();
        assertThat(plan.limitsParallel()).isFalse();
    }

    @Test
    void invalidSettingsFailNamingThePropertyAndValue() {
        assertThatThrownBy(() -> parse("defaults.org.rpm-limit=5")).isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.defaults.org.rpm-limit=5: expected"
                        + " llm.ratelimit.defaults.key|user|team.rpm-limit|tpm-limit|max-parallel-requests"
                        + " (or itpm-limit, otpm-limit, rpd-limit, tpd-limit, limits.<dimension>.<duration>)");
        assertThatThrownBy(() -> parse("defaults.key.rpm=5")).isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.defaults.key.rpm=5: expected"
                        + " llm.ratelimit.defaults.key|user|team.rpm-limit|tpm-limit|max-parallel-requests"
                        + " (or itpm-limit, otpm-limit, rpd-limit, tpd-limit, limits.<dimension>.<duration>)");
        assertThatThrownBy(() -> parse("defaults.user.max-parallel-requests=0")).isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.defaults.user.max-parallel-requests=0: expected a whole"
                        + " number of at least 1 (leave it out for no limit)");
        assertThatThrownBy(() -> CallerLimitPolicy.parse(Map.of("llm.ratelimit.parallel-lease", "0s"), WINDOW))
                .isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.parallel-lease=0s: the lease must be at least 1ms");
    }

    @Test
    void aKeyIsShownOnlyAsAShortHash() {
        CallerCounter key = new CallerCounter(CallerScope.KEY, "sk-live-abcdef", 1, 0, 0);
        assertThat(key.label()).isEqualTo("sha256:" + sha256Prefix("sk-live-abcdef"));
        assertThat(key.toString()).doesNotContain("sk-live");
        assertThat(new CallerCounter(CallerScope.TEAM, "team-a", 1, 0, 0).label()).isEqualTo("team-a");
    }

    private static String sha256Prefix(String text) {
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return java.util.HexFormat.of().formatHex(digest).substring(0, 12);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
