package dev.llmratelimit.engine;

import java.util.Arrays;

/**
 * The counters of one window of a model, as a decision would count them now: per windowed
 * {@link Dimension} (at its index) the model's and each pool's; in a sliding window the previous
 * window's counters are already weighted in ({@code ceil(previous * msLeft / window)}).
 *
 * @param model           per windowed dimension, the model's count
 * @param pools           per pool in pool-index order, per windowed dimension
 * @param remainingMillis until the live window ends; 0 when no window is live (all counters 0)
 */
public record WindowCounters(long[] model, long[][] pools, long remainingMillis) {

    private static final int DIMENSIONS = Dimension.WINDOWED.size();

    public WindowCounters {
        model = model.clone();
        pools = Arrays.stream(pools).map(long[]::clone).toArray(long[][]::new);
    }

    public long of(Dimension dimension) {
        return model[dimension.index()];
    }

    public long pool(int poolIndex, Dimension dimension) {
        return pools[poolIndex][dimension.index()];
    }

    /** No window is live: every counter 0. */
    public static WindowCounters idle(int pools) {
        return new WindowCounters(new long[DIMENSIONS], new long[pools][DIMENSIONS], 0);
    }

    /**
     * The counters a decision would see at {@code now}, from a store's raw fields, by the window rule
     * of {@link AdmissionStore}: a live window counts as it is; a sliding window that ended but is
     * still inside the sliding span counts as the previous window of the next one; anything older
     * counts nothing.
     *
     * @param windowEnd the end of the stored window, {@link Long#MIN_VALUE} when none was stored
     * @param stored    the model's count of every windowed dimension (in index order), then every
     *                  pool's the same way, in pool-index order
     * @param previous  the same fields of the window before it (zeros unless the window slides)
     */
    public static WindowCounters read(GroupWindow window, long windowEnd, long now, long[] stored, long[] previous) {
        if (now < windowEnd) {
            return weighted(window, stored, previous, windowEnd - now);
        }
        if (window.sliding() && windowEnd != Long.MIN_VALUE && now < windowEnd + window.millis()) {
            return weighted(window, new long[stored.length], stored, windowEnd + window.millis() - now);
        }
        return idle(stored.length / DIMENSIONS - 1);
    }

    private static WindowCounters weighted(GroupWindow window, long[] current, long[] previous, long remainingMillis) {
        long[][] fields = new long[current.length / DIMENSIONS][DIMENSIONS];
        for (int i = 0; i < current.length; i++) {
            fields[i / DIMENSIONS][i % DIMENSIONS] = PlanRule.effective(window, current[i], previous[i], remainingMillis);
        }
        return new WindowCounters(fields[0], Arrays.copyOfRange(fields, 1, fields.length), remainingMillis);
    }

    /** These counters as a decision reads them (the previous window already weighted in). */
    GroupCounts asCounts() {
        return GroupCounts.of(model, new long[DIMENSIONS], 0, 0, 0, remainingMillis, 0);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof WindowCounters that && remainingMillis == that.remainingMillis
                && Arrays.equals(model, that.model) && Arrays.deepEquals(pools, that.pools);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(model) * 31 + Arrays.deepHashCode(pools) + Long.hashCode(remainingMillis);
    }

    @Override
    public String toString() {
        return "WindowCounters[model=" + Arrays.toString(model) + ", pools=" + Arrays.deepToString(pools)
                + ", remainingMillis=" + remainingMillis + "]";
    }
}
