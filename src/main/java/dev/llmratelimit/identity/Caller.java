package dev.llmratelimit.identity;

import dev.llmratelimit.budget.BudgetIdentity;

/**
 * Who is calling, as far as rate limiting cares: what the caller's metadata says, not yet checked
 * against the configured priorities (the engine falls back from {@link #teamPriority} to
 * {@link #ownPriority} to the default pool for names a model does not configure) or completed with
 * the configured default limits.
 *
 * @param principal    the principal's name, or {@code null} when unauthenticated; the identity of the key scope
 * @param team         the caller's team, or {@code null}; the identity of the team scope
 * @param teamPriority the team's metadata {@code priority}, or {@code null}
 * @param ownPriority  the caller's own (key-level) metadata {@code priority}, or {@code null}
 * @param user         the user behind the key, or {@code null}; the identity of the user scope
 * @param limits       the per-caller limits the metadata sets, per scope
 */
public record Caller(String principal, String team, String teamPriority, String ownPriority,
                     String user, CallerLimits limits) {

    /** An unauthenticated request: no name, no team, no priority, so the default pool, and no caller limits. */
    public static final Caller ANONYMOUS = new Caller(null, null, null, null);

    /** A caller without user and without per-caller limits. */
    public Caller(String principal, String team, String teamPriority, String ownPriority) {
        this(principal, team, teamPriority, ownPriority, null, CallerLimits.NONE);
    }

    /** The identities this caller's spend counts on: none for an unauthenticated caller. */
    public BudgetIdentity budgetIdentity() {
        return principal == null ? BudgetIdentity.NONE : new BudgetIdentity(principal, user, team);
    }

    /** Fills each component this caller lacks with the fallback's; this caller's values win, limit by limit. */
    Caller orElse(Caller fallback) {
        return new Caller(principal,
                team != null ? team : fallback.team,
                teamPriority != null ? teamPriority : fallback.teamPriority,
                ownPriority != null ? ownPriority : fallback.ownPriority,
                user != null ? user : fallback.user,
                limits.orElse(fallback.limits));
    }

    /** Principal, user and team names may be customer data or key names: never printed; priorities may be printed (docs/identity.md). */
    @Override
    public String toString() {
        return "Caller[" + (principal == null ? "anonymous" : "authenticated")
                + ", team=" + (team == null ? "none" : PriorityNames.REDACTED)
                + ", teamPriority=" + PriorityNames.forLog(teamPriority)
                + ", ownPriority=" + PriorityNames.forLog(ownPriority)
                + (user == null ? "" : ", user=" + PriorityNames.REDACTED)
                + (limits.isEmpty() ? "" : ", " + limits) + "]";
    }
}
