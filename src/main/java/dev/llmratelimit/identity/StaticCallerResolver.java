package dev.llmratelimit.identity;

import dev.llmratelimit.budget.ScopeBudget;
import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.policy.PropertyNames;

import java.security.Principal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The static mapping from configuration, a name containing a dot written in double quotes:
 * {@code llm.ratelimit.principals.<name>.priority|team|user|rpm-limit|tpm-limit|max-parallel-requests},
 * {@code llm.ratelimit.users.<user>.rpm-limit|tpm-limit|max-parallel-requests} and
 * {@code llm.ratelimit.teams.<team>.priority|rpm-limit|tpm-limit|max-parallel-requests}. The limits
 * under {@code principals} are the key scope's. Any other setting is refused as a likely typo.
 */
public final class StaticCallerResolver implements CallerResolver {

    private static final String PRINCIPALS = "principals";
    private static final String USERS = "users";
    private static final String TEAMS = "teams";

    private final Map<String, String> principalPriorities;
    private final Map<String, String> principalTeams;
    private final Map<String, String> principalUsers;
    private final Map<String, String> teamPriorities;
    private final Map<String, ScopeLimits> principalLimits;
    private final Map<String, ScopeLimits> userLimits;
    private final Map<String, ScopeLimits> teamLimits;

    private StaticCallerResolver(Builder builder) {
        this.principalPriorities = Map.copyOf(builder.principalPriorities);
        this.principalTeams = Map.copyOf(builder.principalTeams);
        this.principalUsers = Map.copyOf(builder.principalUsers);
        this.teamPriorities = Map.copyOf(builder.teamPriorities);
        this.principalLimits = Map.copyOf(builder.principalLimits);
        this.userLimits = Map.copyOf(builder.userLimits);
        this.teamLimits = Map.copyOf(builder.teamLimits);
    }

    /** @throws PolicyException for a malformed name, an unknown setting, an empty value or an invalid limit */
    public static StaticCallerResolver fromProperties(Map<String, String> properties) {
        Builder builder = new Builder();
        for (Map.Entry<String, String> entry : properties.entrySet()) {
            String property = entry.getKey();
            if (!property.startsWith(PolicyParser.PREFIX)) {
                continue;
            }
            List<String> segments = PropertyNames.segments(property.substring(PolicyParser.PREFIX.length()));
            String scope = segments.get(0);
            if (!scope.equals(PRINCIPALS) && !scope.equals(USERS) && !scope.equals(TEAMS)) {
                continue;
            }
            if (segments.size() >= 3 && !segments.get(1).isEmpty()
                    && ScopeBudget.isBudgetSetting(segments.subList(2, segments.size()))) {
                continue;                                   // a budget: BudgetPolicy reads it
            }
            String expected = switch (scope) {
                case PRINCIPALS -> "priority, team, user, rpm-limit, tpm-limit or max-parallel-requests";
                case USERS -> "rpm-limit, tpm-limit or max-parallel-requests";
                default -> "priority, rpm-limit, tpm-limit or max-parallel-requests";
            };
            List<String> setting = segments.size() < 3 ? List.of() : segments.subList(2, segments.size());
            if (segments.size() < 3 || segments.get(1).isEmpty() || setting.size() > 1 && !ScopeLimits.isLimitName(setting)) {
                throw new PolicyException(property, entry.getValue(), "expected " + PolicyParser.PREFIX + scope
                        + ".<name>.<setting> with setting " + expected + " (quote a name that contains a dot)");
            }
            builder.set(scope, segments.get(1), setting, entry, expected);
        }
        return new StaticCallerResolver(builder);
    }

    /** Collects the settings while they are read. */
    private static final class Builder {
        final Map<String, String> principalPriorities = new HashMap<>();
        final Map<String, String> principalTeams = new HashMap<>();
        final Map<String, String> principalUsers = new HashMap<>();
        final Map<String, String> teamPriorities = new HashMap<>();
        final Map<String, ScopeLimits> principalLimits = new HashMap<>();
        final Map<String, ScopeLimits> userLimits = new HashMap<>();
        final Map<String, ScopeLimits> teamLimits = new HashMap<>();

        void set(String scope, String name, List<String> settingName, Map.Entry<String, String> entry, String expected) {
            boolean principal = scope.equals(PRINCIPALS);
            String setting = settingName.get(0);
            if (ScopeLimits.isLimitName(settingName)) {
                Map<String, ScopeLimits> limits = principal ? principalLimits : scope.equals(USERS) ? userLimits : teamLimits;
                limits.put(name, limits.getOrDefault(name, ScopeLimits.NONE).with(settingName, entry.getKey(), entry.getValue()));
            } else if (setting.equals("priority") && !scope.equals(USERS)) {
                (principal ? principalPriorities : teamPriorities).put(name, nonEmpty(entry));
            } else if (setting.equals("team") && principal) {
                principalTeams.put(name, nonEmpty(entry));
            } else if (setting.equals("user") && principal) {
                principalUsers.put(name, nonEmpty(entry));
            } else {
                throw unknownSetting(entry, expected);
            }
        }
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
     * Fills in what the principal's metadata left out: team, user, own priority and key limits from
     * {@code principals.<name>}, then the team priority and limits from {@code teams.<team>} of the
     * resulting team and the user limits from {@code users.<user>} of the resulting user.
     */
    Caller complete(Caller fromMetadata) {
        String name = fromMetadata.principal();
        String team = fromMetadata.team() != null ? fromMetadata.team() : lookup(principalTeams, name, null);
        String user = fromMetadata.user() != null ? fromMetadata.user() : lookup(principalUsers, name, null);
        CallerLimits limits = new CallerLimits(lookup(principalLimits, name, ScopeLimits.NONE),
                lookup(userLimits, user, ScopeLimits.NONE), lookup(teamLimits, team, ScopeLimits.NONE));
        return fromMetadata.orElse(new Caller(name, team, lookup(teamPriorities, team, null),
                lookup(principalPriorities, name, null), user, limits));
    }

    /** {@code Map.copyOf} maps refuse a {@code null} key, even to look it up. */
    private static <V> V lookup(Map<String, V> map, String name, V absent) {
        return name == null ? absent : map.getOrDefault(name, absent);
    }
}
