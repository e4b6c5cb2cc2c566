package dev.llmratelimit.identity;

import dev.llmratelimit.policy.PolicyException;
import org.junit.jupiter.api.Test;

import java.security.Principal;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StaticCallerResolverTest {

    static Principal named(String name) {
        return () -> name;
    }

    @Test
    void aMappedPrincipalGetsItsPriorityTeamAndTheTeamsPriority() {
        StaticCallerResolver resolver = StaticCallerResolver.fromProperties(Map.of(
                "llm.ratelimit.principals.alice.priority", "dev",
                "llm.ratelimit.principals.alice.team", "team-a",
                "llm.ratelimit.teams.team-a.priority", "prod"));

        assertThat(resolver.resolve(named("alice"))).isEqualTo(new Caller("alice", "team-a", "prod", "dev"));
    }

    @Test
    void aTeamWithoutConfiguredPriorityLeavesTeamPriorityEmpty() {
        StaticCallerResolver resolver = StaticCallerResolver.fromProperties(Map.of(
                "llm.ratelimit.principals.bob.team", "team-b",
                "llm.ratelimit.teams.team-a.priority", "prod"));

        assertThat(resolver.resolve(named("bob"))).isEqualTo(new Caller("bob", "team-b", null, null));
    }

    @Test
    void anUnmappedPrincipalKeepsOnlyItsName() {
        StaticCallerResolver resolver = StaticCallerResolver.fromProperties(Map.of(
                "llm.ratelimit.principals.alice.priority", "dev"));

        assertThat(resolver.resolve(named("mallory"))).isEqualTo(new Caller("mallory", null, null, null));
    }

    @Test
    void noPrincipalIsAnonymous() {
        StaticCallerResolver resolver = StaticCallerResolver.fromProperties(Map.of(
                "llm.ratelimit.principals.alice.priority", "dev"));

        assertThat(resolver.resolve(null)).isSameAs(Caller.ANONYMOUS);
    }

    @Test
    void quotedNamesMayContainDots() {
        StaticCallerResolver resolver = StaticCallerResolver.fromProperties(Map.of(
                "llm.ratelimit.principals.\"alice@example.com\".priority", "dev",
                "llm.ratelimit.principals.\"alice@example.com\".team", "eu.research",
                "llm.ratelimit.teams.\"eu.research\".priority", "prod"));

        assertThat(resolver.resolve(named("alice@example.com")))
                .isEqualTo(new Caller("alice@example.com", "eu.research", "prod", "dev"));
        assertThat(resolver.resolve(named("alice@example"))).isEqualTo(new Caller("alice@example", null, null, null));
    }

    @Test
    void valuesAreTrimmedAndOtherPropertiesIgnored() {
        StaticCallerResolver resolver = StaticCallerResolver.fromProperties(Map.of(
                "llm.ratelimit.principals.alice.priority", " dev ",
                "llm.ratelimit.models.gpt-4o.rpm", "10",
                "other.principals.alice.priority", "prod"));

        assertThat(resolver.resolve(named("alice"))).isEqualTo(new Caller("alice", null, null, "dev"));
    }

    @Test
    void perCallerLimitsAreReadAtKeyUserAndTeamScope() {
        Map<String, String> properties = new HashMap<>();
        properties.put("llm.ratelimit.principals.alice.rpm-limit", "60");
        properties.put("llm.ratelimit.principals.alice.tpm-limit", "10000");
        properties.put("llm.ratelimit.principals.alice.max-parallel-requests", "4");
        properties.put("llm.ratelimit.principals.alice.user", "alice@example.com");
        properties.put("llm.ratelimit.principals.alice.team", "team-a");
        properties.put("llm.ratelimit.users.\"alice@example.com\".tpm-limit", "50000");
        properties.put("llm.ratelimit.teams.team-a.rpm-limit", "600");
        properties.put("llm.ratelimit.teams.team-a.tpm-limit", "100000");
        properties.put("llm.ratelimit.teams.team-a.max-parallel-requests", "40");
        properties.put("llm.ratelimit.principals.bob.max-parallel-requests", "2");

        StaticCallerResolver resolver = StaticCallerResolver.fromProperties(properties);

        assertThat(resolver.resolve(named("alice"))).isEqualTo(new Caller("alice", "team-a", null, null,
                "alice@example.com", new CallerLimits(new ScopeLimits(60, 10000, 4), new ScopeLimits(0, 50000, 0),
                new ScopeLimits(600, 100000, 40))));
        assertThat(resolver.resolve(named("bob"))).isEqualTo(new Caller("bob", null, null, null, null,
                new CallerLimits(new ScopeLimits(0, 0, 2), ScopeLimits.NONE, ScopeLimits.NONE)));
    }

    @Test
    void metadataLimitsWinLimitByLimitOverStaticOnes() {
        StaticCallerResolver resolver = StaticCallerResolver.fromProperties(Map.of(
                "llm.ratelimit.principals.alice.rpm-limit", "60",
                "llm.ratelimit.principals.alice.tpm-limit", "10000"));
        Caller fromMetadata = new Caller("alice", null, null, null, null,
                new CallerLimits(new ScopeLimits(5, 0, 1), ScopeLimits.NONE, ScopeLimits.NONE));

        assertThat(resolver.complete(fromMetadata).limits().key()).isEqualTo(new ScopeLimits(5, 10000, 1));
    }

    @Test
    void invalidLimitsAndUserSettingsFailNamingThePropertyAndValue() {
        assertThatThrownBy(() -> StaticCallerResolver.fromProperties(Map.of("llm.ratelimit.principals.alice.rpm-limit", "0")))
                .isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.principals.alice.rpm-limit=0: expected a whole number"
                        + " of at least 1 (leave it out for no limit)");
        assertThatThrownBy(() -> StaticCallerResolver.fromProperties(Map.of("llm.ratelimit.teams.a.tpm-limit", "lots")))
                .isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.teams.a.tpm-limit=lots: expected a whole number"
                        + " of at least 1 (leave it out for no limit)");
        assertThatThrownBy(() -> StaticCallerResolver.fromProperties(Map.of("llm.ratelimit.users.u.priority", "prod")))
                .isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.users.u.priority=prod: unknown setting"
                        + " (expected rpm-limit, tpm-limit or max-parallel-requests)");
        assertThatThrownBy(() -> StaticCallerResolver.fromProperties(Map.of("llm.ratelimit.teams.t.user", "u")))
                .isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.teams.t.user=u: unknown setting"
                        + " (expected priority, rpm-limit, tpm-limit or max-parallel-requests)");
    }

    @Test
    void aMistypedSettingFailsNamingThePropertyAndValue() {
        assertThatThrownBy(() -> StaticCallerResolver.fromProperties(Map.of(
                "llm.ratelimit.principals.alice.priorty", "dev")))
                .isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.principals.alice.priorty=dev: unknown setting"
                        + " (expected priority, team, user, rpm-limit, tpm-limit or max-parallel-requests)");
    }

    @Test
    void aTeamHasNoTeam() {
        assertThatThrownBy(() -> StaticCallerResolver.fromProperties(Map.of(
                "llm.ratelimit.teams.team-a.team", "team-b")))
                .isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.teams.team-a.team=team-b: unknown setting"
                        + " (expected priority, rpm-limit, tpm-limit or max-parallel-requests)");
    }

    @Test
    void anUnquotedDottedNameFails() {
        assertThatThrownBy(() -> StaticCallerResolver.fromProperties(Map.of(
                "llm.ratelimit.principals.alice@example.com.priority", "dev")))
                .isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.principals.alice@example.com.priority=dev:"
                        + " expected llm.ratelimit.principals.<name>.<setting> with setting priority, team, user,"
                        + " rpm-limit, tpm-limit or max-parallel-requests (quote a name that contains a dot)");
    }

    @Test
    void aNameWithoutSettingFails() {
        assertThatThrownBy(() -> StaticCallerResolver.fromProperties(Map.of(
                "llm.ratelimit.teams.team-a", "prod")))
                .isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.teams.team-a=prod:"
                        + " expected llm.ratelimit.teams.<name>.<setting> with setting priority,"
                        + " rpm-limit, tpm-limit or max-parallel-requests (quote a name that contains a dot)");
    }

    @Test
    void anEmptyNameFails() {
        assertThatThrownBy(() -> StaticCallerResolver.fromProperties(Map.of(
                "llm.ratelimit.principals.\"\".priority", "dev")))
                .isInstanceOf(PolicyException.class)
                .hasMessageStartingWith("Invalid configuration llm.ratelimit.principals.\"\".priority=dev: expected");
    }

    @Test
    void anEmptyValueFails() {
        assertThatThrownBy(() -> StaticCallerResolver.fromProperties(Map.of(
                "llm.ratelimit.principals.alice.team", "  ")))
                .isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.principals.alice.team=  : must not be empty");
    }
}
