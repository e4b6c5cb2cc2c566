package dev.llmratelimit.identity;

import org.eclipse.microprofile.jwt.JsonWebToken;

import java.security.Principal;

/**
 * Reads a MicroProfile JWT's claims. The only class that names {@link JsonWebToken}: it is created
 * only after {@link CallerResolvers} found the JWT API, so the rest loads on a container without it.
 */
final class JwtCallerReader implements PrincipalReader {

    private final JwtClaimNames claims;

    JwtCallerReader(JwtClaimNames claims) {
        this.claims = claims;
    }

    @Override
    public Caller read(Principal principal) {
        return principal instanceof JsonWebToken jwt ? ClaimsCaller.read(jwt.getName(), jwt::getClaim, claims) : null;
    }
}
