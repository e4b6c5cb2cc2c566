package dev.llmratelimit.engine;

import dev.llmratelimit.policy.KeyHash;

import java.util.Objects;

/**
 * One set of counters a request touches: a model, one of its pools, a caller scope, a budget. A
 * plan is a list of these, and stores execute every group by the same rule ({@link PlanRule}).
 */
public final class CounterGroup {

    private final GroupKind kind;
    private final String id;
    private final String member;
    private final GroupWindow window;
    private final Limits limits;
    private final Enforcement enforcement;
    private final Increments increments;
    private final PoolSharing sharing;
    /** What one store compiled for this group (where its counters live); not part of its value. */
    private volatile Compiled compiled;

    private record Compiled(Object store, Object value) {
    }

    public CounterGroup(GroupKind kind, String id, String member, GroupWindow window, Limits limits,
                        Enforcement enforcement, Increments increments) {
        this(kind, id, member, window, limits, enforcement, increments, null);
    }

    /**
     * @param id          whose counters: the model name (model and pool groups), the principal name
     *                    (key), user or team name, or a budget's scope identity
     * @param member      names a group inside its {@code id}: the pool name of a pool group (it shares
     *                    the model's window), a budget's model; {@code ""} otherwise
     * @param window      how the group's counters roll
     * @param enforcement whether its limits are checked or only tracked
     * @param increments  what an admitted request adds
     * @param sharing     a pool's work-conserving fairness, {@code null} for a fixed share or another kind
     */
    public CounterGroup(GroupKind kind, String id, String member, GroupWindow window, Limits limits,
                        Enforcement enforcement, Increments increments, PoolSharing sharing) {
        if (sharing != null && kind != GroupKind.POOL) {
            throw new IllegalArgumentException("Only a pool shares its model");
        }
        if (kind == GroupKind.POOL && !window.isRolling()) {
            throw new IllegalArgumentException("A pool group lives in its model's rolling window");
        }
        if (increments.slot() && !limits.limitsParallel()) {
            throw new IllegalArgumentException("Only a group that limits parallel requests takes a slot");
        }
        this.kind = kind;
        this.id = id;
        this.member = member;
        this.window = window;
        this.limits = limits;
        this.enforcement = enforcement;
        this.increments = increments;
        this.sharing = sharing;
    }

    public GroupKind kind() {
        return kind;
    }

    public String id() {
        return id;
    }

    public String member() {
        return member;
    }

    public GroupWindow window() {
        return window;
    }

    public Limits limits() {
        return limits;
    }

    public Enforcement enforcement() {
        return enforcement;
    }

    public Increments increments() {
        return increments;
    }

    public PoolSharing sharing() {
        return sharing;
    }

    /**
     * What {@code store} compiled for this group with {@link #compile}, {@code null} if nothing (or
     * another store did). Groups of a configured model and of a caller plan live as long as the
     * policy, so a store works out where their counters live once, not per request.
     */
    public Object compiledBy(Object store) {
        Compiled known = compiled;
        return known != null && known.store == store ? known.value : null;
    }

    /** Keeps what {@code store} compiled for this group (the last store to compile wins). */
    public void compile(Object store, Object value) {
        compiled = new Compiled(store, value);
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

    @Override
    public boolean equals(Object other) {
        return other instanceof CounterGroup that && kind == that.kind && id.equals(that.id) && member.equals(that.member)
                && window.equals(that.window) && limits.equals(that.limits) && enforcement.equals(that.enforcement)
                && increments.equals(that.increments) && Objects.equals(sharing, that.sharing);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, id, member, window, limits, enforcement, increments, sharing);
    }

    /** Caller identities are never printed in full. */
    @Override
    public String toString() {
        String who = kind == GroupKind.MODEL || kind == GroupKind.POOL ? id : KeyHash.shortHash(id);
        return "CounterGroup[" + kind.label() + " " + who + (member.isEmpty() ? "" : "/" + member)
                + ", " + limits + ", " + enforcement.mode() + "]";
    }
}
