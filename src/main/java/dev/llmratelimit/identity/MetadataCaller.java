package dev.llmratelimit.identity;

import java.util.Map;

/** A caller from a {@link MetadataPrincipal}'s own metadata. */
final class MetadataCaller {

    private MetadataCaller() {
    }

    /** @param name the principal's name (the key scope) */
    static Caller read(String name, MetadataPrincipal principal) {
        return new Caller(name,
                ClaimValues.text(principal.team()),
                priorityIn(principal.teamMetadata()),
                priorityIn(principal.metadata()),
                ClaimValues.text(principal.user()),
                new CallerLimits(ScopeLimits.fromMetadata(principal.metadata()),
                        ScopeLimits.fromMetadata(principal.userMetadata()),
                        ScopeLimits.fromMetadata(principal.teamMetadata())));
    }

    private static String priorityIn(Map<String, String> metadata) {
        return metadata == null ? null : ClaimValues.text(metadata.get("priority"));
    }
}
