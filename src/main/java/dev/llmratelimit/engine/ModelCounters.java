package dev.llmratelimit.engine;

import java.util.Arrays;

/**
 * One model's counters as a decision would count them now: in a sliding window the previous
 * window's counters are already weighted in ({@code ceil(previous * msLeft / window)}).
 *
 * @param poolRequests    per pool, in pool-index order
 * @param poolTokens      per pool, in pool-index order
 * @param remainingMillis until the live window ends; 0 when no window is live (all counters 0)
 */
public record ModelCounters(long requests, long tokens, long[] poolRequests, long[] poolTokens, long remainingMillis) {

    public ModelCounters {
        poolRequests = poolRequests.clone();
        poolTokens = poolTokens.clone();
    }

    @Override
    public long[] poolRequests() {
        return poolRequests.clone();
    }

    @Override
    public long[] poolTokens() {
        return poolTokens.clone();
    }

    public long poolRequests(int poolIndex) {
        return poolRequests[poolIndex];
    }

    public long poolTokens(int poolIndex) {
        return poolTokens[poolIndex];
    }

    /** No window is live: every counter 0. */
    public static ModelCounters idle(int pools) {
        return new ModelCounters(0, 0, new long[pools], new long[pools], 0);
    }

    /**
     * The counters a decision would see at {@code now}, from a store's raw fields, by the window rule
     * of {@link AdmissionStore}: a live window counts as it is; a sliding window that ended but is
     * still inside the sliding span counts as the previous window of the next one; anything older
     * counts nothing.
     *
     * @param windowEnd the end of the stored window, {@link Long#MIN_VALUE} when none was stored
     * @param stored    {@code requests, tokens}, then {@code requests, tokens} of every pool in pool-index order
     * @param previous  the same fields of the window before it (zeros unless the window slides)
     */
    public static ModelCounters read(GroupWindow window, long windowEnd, long now, long[] stored, long[] previous) {
        if (now < windowEnd) {
            return weighted(window, stored, previous, windowEnd - now);
        }
        if (window.sliding() && windowEnd != Long.MIN_VALUE && now < windowEnd + window.millis()) {
            return weighted(window, new long[stored.length], stored, windowEnd + window.millis() - now);
        }
        return idle((stored.length - 2) / 2);
    }

    private static ModelCounters weighted(GroupWindow window, long[] current, long[] previous, long remainingMillis) {
        int pools = (current.length - 2) / 2;
        long[] requests = new long[pools];
        long[] tokens = new long[pools];
        for (int i = 0; i < pools; i++) {
            requests[i] = PlanRule.effective(window, current[2 + 2 * i], previous[2 + 2 * i], remainingMillis);
            tokens[i] = PlanRule.effective(window, current[3 + 2 * i], previous[3 + 2 * i], remainingMillis);
        }
        return new ModelCounters(PlanRule.effective(window, current[0], previous[0], remainingMillis),
                PlanRule.effective(window, current[1], previous[1], remainingMillis), requests, tokens, remainingMillis);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ModelCounters that && requests == that.requests && tokens == that.tokens
                && remainingMillis == that.remainingMillis && Arrays.equals(poolRequests, that.poolRequests)
                && Arrays.equals(poolTokens, that.poolTokens);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(poolRequests) * 31 + Long.hashCode(requests) + 7 * Long.hashCode(tokens);
    }

    @Override
    public String toString() {
        return "ModelCounters[requests=" + requests + ", tokens=" + tokens + ", poolRequests="
                + Arrays.toString(poolRequests) + ", poolTokens=" + Arrays.toString(poolTokens)
                + ", remainingMillis=" + remainingMillis + "]";
    }
}
