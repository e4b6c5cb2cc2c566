package dev.llmratelimit.identity;

/**
 * Who is calling, as far as rate limiting cares: what the caller's metadata says, not yet checked
 * against the configured priorities (the engine falls back from {@link #teamPriority} to
 * {@link #ownPriority} to the default pool for names a model does not configure).
 *
 * <p>Per-caller limits (rpm-limit, tpm-limit, max-parallel-requests at key, user and team scope)
 * will join this record as a further component.
 *
 * @param principal    the principal's name, or {@code null} when unauthenticated
 * @param team         the caller's team, or {@code null}
 * @param teamPriority the team's metadata {@code priority}, or {@code null}
 * @param ownPriority  the caller's own (key-level) metadata {@code priority}, or {@code null}
 */
public record Caller(String principal, String team, String teamPriority, String ownPriority) {

    /** An unauthenticated request: no name, no team, no priority, so the default pool. */
    public static final Caller ANONYMOUS = new Caller(null, null, null, null);

    /** Fills each component this caller lacks with the given fallback; this caller's values win. */
    Caller orElse(String fallbackTeam, String fallbackTeamPriority, String fallbackOwnPriority) {
        return new Caller(principal,
                team != null ? team : fallbackTeam,
                teamPriority != null ? teamPriority : fallbackTeamPriority,
                ownPriority != null ? ownPriority : fallbackOwnPriority);
    }

    /** Principal and team names may be customer data or key names: never printed; priorities as section 5 allows. */
    @Override
    public String toString() {
        return "Caller[" + (principal == null ? "anonymous" : "authenticated")
                + ", team=" + (team == null ? "none" : PriorityNames.REDACTED)
                + ", teamPriority=" + PriorityNames.forLog(teamPriority)
                + ", ownPriority=" + PriorityNames.forLog(ownPriority) + "]";
    }
}
