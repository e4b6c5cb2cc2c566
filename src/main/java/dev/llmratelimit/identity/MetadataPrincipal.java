package dev.llmratelimit.identity;

import java.security.Principal;
import java.util.Map;

/**
 * A principal that carries its own rate-limit metadata (an API key's record, a user's profile).
 * Application principal classes implement it; the default resolver reads key {@code priority} from
 * the key's and the team's maps, and the per-caller limits ({@code rpm-limit}, {@code tpm-limit},
 * the other short names, {@code limits.<dimension>.<duration>} and {@code max-parallel-requests})
 * from the key's, the user's and the team's maps. Values set here win over the static
 * {@code llm.ratelimit.principals.*} mapping.
 */
public interface MetadataPrincipal extends Principal {

    /** The caller's own (key-level) metadata: {@code priority} and the key-scope limits. May be empty, not {@code null}. */
    Map<String, String> metadata();

    /** The user behind this key (the identity of the user scope), or {@code null} for none. */
    default String user() {
        return null;
    }

    /** The user's metadata: the user-scope limits. */
    default Map<String, String> userMetadata() {
        return Map.of();
    }

    /** The caller's team, or {@code null} for none. */
    default String team() {
        return null;
    }

    /** The team's metadata: {@code priority} and the team-scope limits. */
    default Map<String, String> teamMetadata() {
        return Map.of();
    }
}
