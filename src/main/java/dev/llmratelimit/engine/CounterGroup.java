package dev.llmratelimit.engine;

import dev.llmratelimit.policy.KeyHash;

/**
 * One set of counters a request touches: a model, one of its pools, a caller scope, a budget. A
 * plan is a list of these, and stores execute every group by the same rule ({@link PlanRule}).
 *
 * @param id          whose counters: the model name (model and pool groups), the principal name
 *                    (key), user or team name, or a budget's scope identity
 * @param member      names a group inside its {@code id}: the pool name of a pool group (it shares
 *                    the model's window), a budget's model; {@code ""} otherwise
 * @param window      how the group's counters roll
 * @param enforcement whether its limits are checked or only tracked
 * @param increments  what an admitted request adds
 * @param sharing     a pool's work-conserving fairness, {@code null} for a fixed share or another kind
 */
public record CounterGroup(GroupKind kind, String id, String member, GroupWindow window, Limits limits,
                           Enforcement enforcement, Increments increments, PoolSharing sharing) {

    public CounterGroup(GroupKind kind, String id, String member, GroupWindow window, Limits limits,
                        Enforcement enforcement, Increments increments) {
        this(kind, id, member, window, limits, enforcement, increments, null);
    }

    public CounterGroup {
        if (sharing != null && kind != GroupKind.POOL) {
            throw new IllegalArgumentException("Only a pool shares its model");
        }
        if (kind == GroupKind.POOL && !window.isRolling()) {
            throw new IllegalArgumentException("A pool group lives in its model's rolling window");
        }
        if (increments.slot() && !limits.limitsParallel()) {
            throw new IllegalArgumentException("Only a group that limits parallel requests takes a slot");
        }
    }

    /** The same group with other increments (a request's token estimate, its worst-case cost). */
    public CounterGroup withIncrements(Increments other) {
        return other == increments || other.equals(increments) ? this
                : new CounterGroup(kind, id, member, window, limits, enforcement, other, sharing);
    }

    /**
     * The limits the next decision of this group would apply with these pools active: a
     * work-conserving pool's share among them (itself counted), else its own limits.
     */
    public Limits limitsWith(boolean[] activePools) {
        return sharing == null || activePools == null ? limits : sharing.limitsAmong(activePools);
    }

    /** A work-conserving pool as decided with these pools active: its limits are its share among them. */
    public CounterGroup among(boolean[] activePools) {
        PoolSharing.Decided decided = sharing.decided(activePools);
        return new CounterGroup(kind, id, member, window, decided.limits(), enforcement, increments, decided.sharing());
    }

    /** Whether settling a request changes this group's tokens (it limits tokens of some kind). */
    public boolean countsTokens() {
        return window.counts() && limits.limitsAnyTokens();
    }

    public boolean countsMoney() {
        return window.counts() && limits.limitsMoney();
    }

    /**
     * How messages show the identity: a key only as {@code sha256:} and the first 12 hex digits of
     * its SHA-256 (principal names may be the API key itself); other names as they are.
     */
    public String label() {
        return kind == GroupKind.KEY ? KeyHash.shortHash(id) : id;
    }

    /** Caller identities are never printed in full. */
    @Override
    public String toString() {
        String who = kind == GroupKind.MODEL || kind == GroupKind.POOL ? id : KeyHash.shortHash(id);
        return "CounterGroup[" + kind.label() + " " + who + (member.isEmpty() ? "" : "/" + member)
                + ", " + limits + ", " + enforcement.mode() + "]";
    }
}
