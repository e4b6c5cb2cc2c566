package dev.llmratelimit.identity;

import org.springframework.security.oauth2.core.ClaimAccessor;
import org.springframework.security.oauth2.core.OAuth2AuthenticatedPrincipal;

import java.util.Map;

/** The claims of a Spring Security OAuth2 principal; the only class naming those types, loaded only where they are present. */
final class OAuth2Claims {

    private OAuth2Claims() {
    }

    /** A JWT's or OIDC token's claims, an opaque token's attributes, else {@code null}. */
    static Map<String, Object> of(Object principal) {
        if (principal instanceof ClaimAccessor token) {
            return token.getClaims();
        }
        return principal instanceof OAuth2AuthenticatedPrincipal token ? token.getAttributes() : null;
    }
}
