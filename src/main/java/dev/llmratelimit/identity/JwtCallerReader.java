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
        if (!(principal instanceof JsonWebToken jwt)) {
            return null;
        }
        return new Caller(jwt.getName(),
                ClaimValues.text(jwt.getClaim(claims.team())),
                claimOrMember(jwt, claims.teamPriority(), claims.teamMetadata()),
                claimOrMember(jwt, claims.priority(), claims.metadata()),
                ClaimValues.text(jwt.getClaim(claims.user())),
                new CallerLimits(ScopeLimits.fromMetadata(jwt.getClaim(claims.metadata())),
                        ScopeLimits.fromMetadata(jwt.getClaim(claims.userMetadata())),
                        ScopeLimits.fromMetadata(jwt.getClaim(claims.teamMetadata()))));
    }

    /** The priority claim itself, else member {@code priority} of the metadata object claim. */
    private static String claimOrMember(JsonWebToken jwt, String claim, String objectClaim) {
        String direct = ClaimValues.text(jwt.getClaim(claim));
        return direct != null ? direct : ClaimValues.textIn(jwt.getClaim(objectClaim), "priority");
    }
}
