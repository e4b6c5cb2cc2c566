package dev.llmratelimit.engine;

import dev.llmratelimit.policy.ModelPolicy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Work-conserving fairness on a pool group (docs/fairness.md): every pool of the model with its
 * configured share, this pool's place among them and the model's limits of the group's window.
 * While the model is saturated the pool is held to its share re-normalised over the pools active
 * in the window: a pool is active while it asked for capacity within the last window length, and
 * the asking pool always is. The store reads which pools are active in the same atomic step as the
 * counters and decides with {@link #decided the pool's limits at that moment}.
 */
public final class PoolSharing {

    /** Models with at most this many pools keep every decided sharing (one per set of active pools). */
    private static final int CACHED_POOLS = 10;

    private final List<String> pools;
    private final double[] shares;
    private final int self;
    private final long[] capacity;
    private final boolean[] active;
    /** By bit mask of the active pools (self included): the limits and sharing decided, built on first use. */
    private final Decided[] decided;

    /** A pool's limits and sharing with one set of pools active. */
    public record Decided(Limits limits, PoolSharing sharing) {
    }

    public PoolSharing(List<String> pools, double[] shares, int self, long[] capacity, boolean[] active) {
        this.pools = List.copyOf(pools);
        this.shares = shares.clone();
        this.self = self;
        this.capacity = capacity.clone();
        this.active = active == null ? null : active.clone();
        if (shares.length != pools.size() || self < 0 || self >= shares.length) {
            throw new IllegalArgumentException("One share per pool, and the pool among them");
        }
        this.decided = active == null && pools.size() <= CACHED_POOLS ? new Decided[1 << pools.size()] : null;
    }

    /** Every pool of the model, in the policy's order (the default pool first). */
    public List<String> pools() {
        return pools;
    }

    /** Each pool's configured share, in that order. */
    public double[] shares() {
        return shares;
    }

    /** This pool's index in {@link #pools()}. */
    public int self() {
        return self;
    }

    /** The model's limit per {@link Dimension#WINDOWED} in this window ({@link Limits#NONE}: none). */
    public long[] capacity() {
        return capacity;
    }

    /** Which pools were active when the decision was made; {@code null} before it. */
    public boolean[] active() {
        return active;
    }

    /** The share re-normalised over the active pools (the asking pool is always one of them). */
    public double shareAmong(boolean[] activePools) {
        double sum = 0.0;
        for (int k = 0; k < shares.length; k++) {
            if (k == self || activePools[k]) {
                sum += shares[k];
            }
        }
        return sum > 0 ? shares[self] / sum : 0.0;
    }

    /** The pool group's limits with these pools active: the model's capacity times the re-normalised share. */
    public Limits limitsAmong(boolean[] activePools) {
        double share = shareAmong(activePools);
        long[] limits = new long[capacity.length];
        for (int d = 0; d < capacity.length; d++) {
            limits[d] = capacity[d] < 0 ? Limits.NONE : ModelPolicy.poolLimit(capacity[d], share);
        }
        return new Limits(limits, Limits.NONE, Limits.NONE);
    }

    /**
     * The pool's limits and this sharing as decided with these pools active; built once per set of
     * active pools (models with few pools), so a decision allocates nothing for it.
     */
    public Decided decided(boolean[] activePools) {
        if (decided == null) {
            return new Decided(limitsAmong(activePools), among(activePools));
        }
        int mask = 1 << self;
        for (int k = 0; k < activePools.length; k++) {
            if (activePools[k]) {
                mask |= 1 << k;
            }
        }
        Decided known = decided[mask];
        if (known == null) {
            known = new Decided(limitsAmong(activePools), among(activePools));
            decided[mask] = known;   // immutable: a racing thread at worst builds its own
        }
        return known;
    }

    /** This sharing as decided with these pools active. */
    public PoolSharing among(boolean[] activePools) {
        boolean[] withSelf = activePools.clone();
        withSelf[self] = true;
        return new PoolSharing(pools, shares, self, capacity, withSelf);
    }

    /** The same sharing of another capacity (an instance's part of the model while the store is away). */
    public PoolSharing withCapacity(long[] other) {
        return new PoolSharing(pools, shares, self, other, active);
    }

    /** The share the decision held the pool to; its configured share before a decision. */
    public double shareNow() {
        return active == null ? shares[self] : shareAmong(active);
    }

    /** The names of the active pools, in the policy's order; empty before a decision. */
    public List<String> activePools() {
        List<String> names = new ArrayList<>(pools.size());
        for (int k = 0; active != null && k < active.length; k++) {
            if (active[k]) {
                names.add(pools.get(k));
            }
        }
        return names;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PoolSharing that && pools.equals(that.pools) && Arrays.equals(shares, that.shares)
                && self == that.self && Arrays.equals(capacity, that.capacity) && Arrays.equals(active, that.active);
    }

    @Override
    public int hashCode() {
        return pools.hashCode() * 31 + self;
    }

    @Override
    public String toString() {
        return "PoolSharing[" + pools.get(self) + " of " + pools + ", active " + activePools() + "]";
    }
}
