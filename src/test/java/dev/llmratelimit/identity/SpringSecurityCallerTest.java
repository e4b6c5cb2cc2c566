package dev.llmratelimit.identity;

import org.junit.jupiter.api.Test;
import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.authentication.dao.DaoAuthenticationProvider;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.userdetails.UserDetails;

import java.util.Collection;
import java.util.List;
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

    /** An application's user record that is both Spring Security's {@code UserDetails} and a {@link MetadataPrincipal}. */
    static final class ApiKeyUser implements UserDetails, MetadataPrincipal {

        private final String name;
        private final Map<String, String> metadata;

        ApiKeyUser(String name, Map<String, String> metadata) {
            this.name = name;
            this.metadata = metadata;
        }

        @Override
        public String getName() {
            return name;
        }

        @Override
        public String getUsername() {
            return name;
        }

        @Override
        public String getPassword() {
            return "{noop}" + name + "-secret";
        }

        @Override
        public Collection<? extends GrantedAuthority> getAuthorities() {
            return AuthorityUtils.createAuthorityList("llm.priority:prod", "llm.user:dana-smith");
        }

        @Override
        public Map<String, String> metadata() {
            return metadata;
        }

        @Override
        public String team() {
            return "research";
        }

        @Override
        public Map<String, String> teamMetadata() {
            return Map.of("priority", "high", "tpm-limit", "5000");
        }
    }

    @Test
    void aUserDetailsThatIsAMetadataPrincipalGivesItsMetadataAndAuthoritiesFillTheRest() {
        DaoAuthenticationProvider login = new DaoAuthenticationProvider(
                username -> new ApiKeyUser(username, Map.of("priority", "batch", "rpm-limit", "3")));
        Authentication dana = login.authenticate(
                UsernamePasswordAuthenticationToken.unauthenticated("dana", "dana-secret"));

        Caller caller = CallerResolvers.create(Map.of()).resolve(dana);

        assertThat(dana.getPrincipal()).isInstanceOf(ApiKeyUser.class);
        assertThat(caller).isEqualTo(new Caller("dana", "research", "high", "batch", "dana-smith",
                new CallerLimits(new ScopeLimits(3, 0, 0), ScopeLimits.NONE, new ScopeLimits(0, 5000, 0))));
    }
}
