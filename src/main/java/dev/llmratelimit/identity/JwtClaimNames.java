package dev.llmratelimit.identity;

import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.policy.PolicyParser;

import java.util.Map;

/**
 * Which JWT claims carry the caller's metadata ({@code llm.ratelimit.jwt.*}). Holds no JWT type, so
 * it loads whether or not MicroProfile JWT is present.
 */
record JwtClaimNames(String priority, String metadata, String team, String teamPriority, String teamMetadata,
                     String user, String userMetadata) {

    static final String PREFIX = PolicyParser.PREFIX + "jwt.";

    static JwtClaimNames fromProperties(Map<String, String> properties) {
        for (String property : properties.keySet()) {
            if (property.startsWith(PREFIX) && !isKnown(property.substring(PREFIX.length()))) {
                throw new PolicyException(property, properties.get(property),
                        "unknown JWT setting (expected priority-claim, metadata-claim, team-claim,"
                                + " team-priority-claim, team-metadata-claim, user-claim or user-metadata-claim)");
            }
        }
        return new JwtClaimNames(
                claim(properties, "priority-claim", "priority"),
                claim(properties, "metadata-claim", "metadata"),
                claim(properties, "team-claim", "team"),
                claim(properties, "team-priority-claim", "team_priority"),
                claim(properties, "team-metadata-claim", "team_metadata"),
                claim(properties, "user-claim", "sub"),
                claim(properties, "user-metadata-claim", "user_metadata"));
    }

    private static boolean isKnown(String setting) {
        return switch (setting) {
            case "priority-claim", "metadata-claim", "team-claim", "team-priority-claim", "team-metadata-claim",
                 "user-claim", "user-metadata-claim" -> true;
            default -> false;
        };
    }

    private static String claim(Map<String, String> properties, String setting, String defaultName) {
        String value = properties.get(PREFIX + setting);
        if (value == null) {
            return defaultName;
        }
        if (value.isBlank()) {
            throw new PolicyException(PREFIX + setting, value, "a claim name must not be empty");
        }
        return value.trim();
    }
}
