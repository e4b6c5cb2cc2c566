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
    void perCallerLimitSettingsAreAcceptedAtBothScopes() {
        Map<String, String> properties = new HashMap<>();
        properties.put("llm.ratelimit.principals.alice.rpm-limit", "60");
        properties.put("llm.ratelimit.principals.alice.tpm-limit", "10000");
        properties.put("llm.ratelimit.principals.alice.max-parallel-requests", "4");
        properties.put("llm.ratelimit.teams.team-a.rpm-limit", "600");
        properties.put("llm.ratelimit.teams.team-a.tpm-limit", "100000");
        properties.put("llm.ratelimit.teams.team-a.max-parallel-requests", "40");

        StaticCallerResolver resolver = StaticCallerResolver.fromProperties(properties);

        assertThat(resolver.resolve(named("alice"))).isEqualTo(new Caller("alice", null, null, null));
    }

    @Test
    void aMistypedSettingFailsNamingThePropertyAndValue() {
        assertThatThrownBy(() -> StaticCallerResolver.fromProperties(Map.of(
                "llm.ratelimit.principals.alice.priorty", "dev")))
                .isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.principals.alice.priorty=dev: unknown setting"
                        + " (expected priority, team, rpm-limit, tpm-limit or max-parallel-requests)");
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
                        + " expected llm.ratelimit.principals.<name>.<setting> with setting priority, team,"
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
