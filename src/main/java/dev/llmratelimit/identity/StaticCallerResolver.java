package dev.llmratelimit.identity;

import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.policy.PropertyNames;

import java.security.Principal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The static mapping from configuration: {@code llm.ratelimit.principals.<name>.priority|team} and
 * {@code llm.ratelimit.teams.<team>.priority}, a name containing a dot written in double quotes.
 * The per-caller limit settings ({@code rpm-limit}, {@code tpm-limit}, {@code max-parallel-requests})
 * are accepted here and read elsewhere; any other setting is refused as a likely typo.
 */
public final class StaticCallerResolver implements CallerResolver {

    private static final String PRINCIPALS = "principals";
    private static final String TEAMS = "teams";

    private final Map<String, String> principalPriorities;
    private final Map<String, String> principalTeams;
    private final Map<String, String> teamPriorities;

    private StaticCallerResolver(Map<String, String> principalPriorities, Map<String, String> principalTeams,
                                 Map<String, String> teamPriorities) {
        this.principalPriorities = Map.copyOf(principalPriorities);
        this.principalTeams = Map.copyOf(principalTeams);
        this.teamPriorities = Map.copyOf(teamPriorities);
    }

    /** @throws PolicyException for a malformed name, an unknown setting or an empty value */
    public static StaticCallerResolver fromProperties(Map<String, String> properties) {
        Map<String, String> principalPriorities = new HashMap<>();
        Map<String, String> principalTeams = new HashMap<>();
        Map<String, String> teamPriorities = new HashMap<>();
        for (Map.Entry<String, String> entry : properties.entrySet()) {
            String property = entry.getKey();
            if (!property.startsWith(PolicyParser.PREFIX)) {
                continue;
            }
            List<String> segments = PropertyNames.segments(property.substring(PolicyParser.PREFIX.length()));
            String scope = segments.get(0);
            if (!scope.equals(PRINCIPALS) && !scope.equals(TEAMS)) {
                continue;
            }
            boolean principal = scope.equals(PRINCIPALS);
            String expected = principal
                    ? "priority, team, rpm-limit, tpm-limit or max-parallel-requests"
                    : "priority, rpm-limit, tpm-limit or max-parallel-requests";
            if (segments.size() != 3 || segments.get(1).isEmpty()) {
                throw new PolicyException(property, entry.getValue(), "expected " + PolicyParser.PREFIX + scope
                        + ".<name>.<setting> with setting " + expected + " (quote a name that contains a dot)");
            }
            String name = segments.get(1);
            switch (segments.get(2)) {
                case "priority" -> (principal ? principalPriorities : teamPriorities).put(name, nonEmpty(entry));
                case "team" -> {
                    if (!principal) {
                        throw unknownSetting(entry, expected);
                    }
                    principalTeams.put(name, nonEmpty(entry));
                }
                case "rpm-limit", "tpm-limit", "max-parallel-requests" -> {
                    // per-caller limits: parsed and enforced outside the resolver
                }
                default -> throw unknownSetting(entry, expected);
            }
        }
        return new StaticCallerResolver(principalPriorities, principalTeams, teamPriorities);
    }

    private static PolicyException unknownSetting(Map.Entry<String, String> entry, String expected) {
        return new PolicyException(entry.getKey(), entry.getValue(), "unknown setting (expected " + expected + ")");
    }

    private static String nonEmpty(Map.Entry<String, String> entry) {
        String value = entry.getValue() == null ? "" : entry.getValue().trim();
        if (value.isEmpty()) {
            throw new PolicyException(entry.getKey(), entry.getValue(), "must not be empty");
        }
        return value;
    }

    @Override
    public Caller resolve(Principal principal) {
        return principal == null ? Caller.ANONYMOUS : complete(new Caller(principal.getName(), null, null, null));
    }

    /**
     * Fills in what the principal's metadata left out: team and own priority from
     * {@code principals.<name>}, then the team priority from {@code teams.<team>} of the resulting team.
     */
    Caller complete(Caller fromMetadata) {
        String name = fromMetadata.principal();
        String team = fromMetadata.team() != null || name == null ? fromMetadata.team() : principalTeams.get(name);
        return fromMetadata.orElse(team,
                team == null ? null : teamPriorities.get(team),
                name == null ? null : principalPriorities.get(name));
    }
}
