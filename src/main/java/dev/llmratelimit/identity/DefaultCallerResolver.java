package dev.llmratelimit.identity;

import java.security.Principal;

/**
 * The built-in resolver: a {@link MetadataPrincipal}'s metadata, else a MicroProfile JWT's claims
 * (when the JWT API is present), else just the principal's name; then the static mapping fills in
 * whatever that left out.
 */
final class DefaultCallerResolver implements CallerResolver {

    private final PrincipalReader jwtReader;
    private final StaticCallerResolver staticMapping;

    /** @param jwtReader the JWT claim reader, or {@code null} when the JWT API is absent */
    DefaultCallerResolver(PrincipalReader jwtReader, StaticCallerResolver staticMapping) {
        this.jwtReader = jwtReader;
        this.staticMapping = staticMapping;
    }

    @Override
    public Caller resolve(Principal principal) {
        return principal == null ? Caller.ANONYMOUS : staticMapping.complete(fromMetadata(principal));
    }

    private Caller fromMetadata(Principal principal) {
        if (principal instanceof MetadataPrincipal withMetadata) {
            return MetadataCaller.read(principal.getName(), withMetadata);
        }
        Caller fromJwt = jwtReader == null ? null : jwtReader.read(principal);
        return fromJwt != null ? fromJwt : new Caller(principal.getName(), null, null, null);
    }
}
