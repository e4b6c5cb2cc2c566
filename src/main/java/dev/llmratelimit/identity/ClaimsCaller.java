package dev.llmratelimit.identity;

import java.util.function.Function;

/** A caller from a token's claims under the configured claim names ({@code llm.ratelimit.jwt.*}), whatever the token's API. */
final class ClaimsCaller {

    private ClaimsCaller() {
    }

    /** @param claim the claim's value by name, {@code null} when absent */
    static Caller read(String principal, Function<String, Object> claim, JwtClaimNames claims) {
        return new Caller(principal,
                ClaimValues.text(claim.apply(claims.team())),
                claimOrMember(claim, claims.teamPriority(), claims.teamMetadata()),
                claimOrMember(claim, claims.priority(), claims.metadata()),
                ClaimValues.text(claim.apply(claims.user())),
                new CallerLimits(ScopeLimits.fromMetadata(claim.apply(claims.metadata())),
                        ScopeLimits.fromMetadata(claim.apply(claims.userMetadata())),
                        ScopeLimits.fromMetadata(claim.apply(claims.teamMetadata()))));
    }

    /** The priority claim itself, else member {@code priority} of the metadata object claim. */
    private static String claimOrMember(Function<String, Object> claim, String name, String objectClaim) {
        String direct = ClaimValues.text(claim.apply(name));
        return direct != null ? direct : ClaimValues.textIn(claim.apply(objectClaim), "priority");
    }
}
