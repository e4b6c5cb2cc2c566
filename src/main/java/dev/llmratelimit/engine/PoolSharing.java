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
 * counters and decides on {@link #among the pool's limits at that moment}.
 *
 * @param pools    every pool of the model, in the policy's order (the default pool first)
 * @param shares   each pool's configured share, in that order
 * @param self     this pool's index in {@code pools}
 * @param capacity the model's limit per {@link Dimension#WINDOWED} in this window ({@link Limits#NONE}: none)
 * @param active   which pools were active when the decision was made; {@code null} before it
 */
public record PoolSharing(List<String> pools, double[] shares, int self, long[] capacity, boolean[] active) {

    public PoolSharing {
        pools = List.copyOf(pools);
        shares = shares.clone();
        capacity = capacity.clone();
        active = active == null ? null : active.clone();
        if (shares.length != pools.size() || self < 0 || self >= shares.length) {
            throw new IllegalArgumentException("One share per pool, and the pool among them");
        }
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
