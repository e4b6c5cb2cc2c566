package dev.llmratelimit.identity;

import org.junit.jupiter.api.Test;
import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The built-in resolver reads Spring Security's Authentication: authorities, details, the static mapping. */
class SpringSecurityCallerTest {

    @Test
    void authoritiesGivePriorityTeamAndUser() {
        UsernamePasswordAuthenticationToken alice = UsernamePasswordAuthenticationToken.authenticated("alice", "n/a",
                AuthorityUtils.createAuthorityList("ROLE_USER", "llm.priority:prod", "llm.team:team-a",
                        "llm.team-priority:high", "llm.user:alice-smith"));

        Caller caller = CallerResolvers.create(Map.of()).resolve(alice);

        assertThat(caller).isEqualTo(new Caller("alice", "team-a", "high", "prod", "alice-smith", CallerLimits.NONE));
    }

    @Test
    void detailsUnderTheClaimNamesWinOverAuthoritiesAndCarryLimits() {
        UsernamePasswordAuthenticationToken bob = UsernamePasswordAuthenticationToken.authenticated("bob", "n/a",
                AuthorityUtils.createAuthorityList("llm.priority:prod"));
        bob.setDetails(Map.of("level", "dev", "metadata", Map.of("rpm-limit", "7")));

        Caller caller = CallerResolvers.create(Map.of("llm.ratelimit.jwt.priority-claim", "level")).resolve(bob);

        assertThat(caller.ownPriority()).isEqualTo("dev");
        assertThat(caller.limits()).isEqualTo(new CallerLimits(ScopeLimits.fromMetadata(Map.of("rpm-limit", "7")),
                ScopeLimits.fromMetadata(null), ScopeLimits.fromMetadata(null)));
    }

    @Test
    void theStaticMappingFillsWhatTheAuthenticationLeavesOut() {
        TestingAuthenticationToken carol = new TestingAuthenticationToken("carol", "n/a", "ROLE_USER");
        carol.setAuthenticated(true);

        Caller caller = CallerResolvers.create(Map.of("llm.ratelimit.principals.carol.priority", "dev"))
                .resolve(carol);

        assertThat(caller.principal()).isEqualTo("carol");
        assertThat(caller.ownPriority()).isEqualTo("dev");
    }
}
