package dev.llmratelimit.identity;

import org.eclipse.microprofile.jwt.JsonWebToken;

import java.util.Map;
import java.util.Set;

/** A MicroProfile JWT with fixed claims, as a container would hand it to the filter. */
record TestJwt(String name, Map<String, Object> claims) implements JsonWebToken {

    @Override
    public String getName() {
        return name;
    }

    @Override
    public Set<String> getClaimNames() {
        return claims.keySet();
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getClaim(String claimName) {
        return (T) claims.get(claimName);
    }
}
