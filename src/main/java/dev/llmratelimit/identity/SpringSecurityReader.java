package dev.llmratelimit.identity;

import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;

import java.security.Principal;
import java.util.Map;
import java.util.function.Function;

/**
 * Reads a Spring Security {@link Authentication} (the principal Spring Security's request wrapper hands
 * out): a {@link MetadataPrincipal} it holds as its principal (a {@code UserDetails} that implements it) or
 * details, else the claims of a JWT or OAuth2 token under the {@code llm.ratelimit.jwt.*} claim names, or a
 * {@code Map} in the authentication's details under the same names; then authorities
 * {@value #PRIORITY}<i>name</i>, {@value #TEAM}<i>name</i>, {@value #TEAM_PRIORITY}<i>name</i> and
 * {@value #USER}<i>name</i> fill what those left out. The only class that names Spring Security: created
 * only after {@link CallerResolvers} found it.
 */
final class SpringSecurityReader implements PrincipalReader {

    static final String PRIORITY = "llm.priority:";
    static final String TEAM = "llm.team:";
    static final String TEAM_PRIORITY = "llm.team-priority:";
    static final String USER = "llm.user:";

    private final JwtClaimNames claims;
    private final boolean oauth2;

    /** @param oauth2 whether Spring Security's OAuth2 classes are present (resource servers, OAuth2 login) */
    SpringSecurityReader(JwtClaimNames claims, boolean oauth2) {
        this.claims = claims;
        this.oauth2 = oauth2;
    }

    @Override
    public Caller read(Principal principal) {
        if (!(principal instanceof Authentication authentication) || !authentication.isAuthenticated()) {
            return null;
        }
        Caller own = ownMetadata(authentication);
        return own.orElse(new Caller(authentication.getName(),
                authority(authentication, TEAM), authority(authentication, TEAM_PRIORITY),
                authority(authentication, PRIORITY), authority(authentication, USER), CallerLimits.NONE));
    }

    /** A {@link MetadataPrincipal} as the authentication's principal (a {@code UserDetails}) or details, else the token's claims. */
    private Caller ownMetadata(Authentication authentication) {
        if (authentication.getPrincipal() instanceof MetadataPrincipal principal) {
            return MetadataCaller.read(authentication.getName(), principal);
        }
        if (authentication.getDetails() instanceof MetadataPrincipal details) {
            return MetadataCaller.read(authentication.getName(), details);
        }
        return ClaimsCaller.read(authentication.getName(), claimsOf(authentication), claims);
    }

    private Function<String, Object> claimsOf(Authentication authentication) {
        Map<String, Object> tokenClaims = oauth2 ? OAuth2Claims.of(authentication.getPrincipal()) : null;
        if (tokenClaims != null) {
            return tokenClaims::get;
        }
        if (authentication.getDetails() instanceof Map<?, ?> details) {
            return details::get;
        }
        return name -> null;
    }

    /** The rest of the first authority that starts with the prefix, or {@code null}. */
    private static String authority(Authentication authentication, String prefix) {
        for (GrantedAuthority granted : authentication.getAuthorities()) {
            String authority = granted.getAuthority();
            if (authority != null && authority.startsWith(prefix) && authority.length() > prefix.length()) {
                return authority.substring(prefix.length());
            }
        }
        return null;
    }
}
