package dev.llmratelimit.identity;

import java.security.Principal;
import java.util.Map;

/**
 * A principal that carries its own rate-limit metadata (an API key's record, a user's profile).
 * Application principal classes implement it; the default resolver reads key {@code priority} from
 * both maps. Values set here win over the static {@code llm.ratelimit.principals.*} mapping.
 */
public interface MetadataPrincipal extends Principal {

    /** The caller's own (key-level) metadata; key {@code priority}. May be empty, not {@code null}. */
    Map<String, String> metadata();

    /** The caller's team, or {@code null} for none. */
    default String team() {
        return null;
    }

    /** The team's metadata; key {@code priority}. */
    default Map<String, String> teamMetadata() {
        return Map.of();
    }
}
