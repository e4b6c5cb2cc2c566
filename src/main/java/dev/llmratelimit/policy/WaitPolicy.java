package dev.llmratelimit.policy;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * How long a refused request may wait for capacity instead of getting its 429 at once, and in which
 * order waiters are served.
 *
 * @param maxWait       per model (or {@link #ANY_MODEL}), per pool (or {@link #ANY_POOL}): the longest wait
 * @param maxWaiters          how many requests may wait at once (per application instance); beyond it the 429 comes at once
 * @param maxWaitingBytes     how many bytes of request bodies the waiters may hold together
 * @param maxWaitersPerCaller how many of the waiters may be one caller's (anonymous requests are one caller)
 * @param pollInterval        the longest a waiter goes without being decided again when nothing signals new capacity
 * @param priorityOrder       {@code priority-order}: pools served first, in this order; empty to rank by share
 */
public record WaitPolicy(Map<String, Map<String, Duration>> maxWait, int maxWaiters, long maxWaitingBytes,
                         int maxWaitersPerCaller, Duration pollInterval, List<String> priorityOrder) {

    /** {@code max-waiting-bytes} when not set: a sixteenth of a 1 GiB heap, an eighth of a 512 MiB one. */
    public static final long DEFAULT_MAX_WAITING_BYTES = 64L << 20;

    /** {@code max-waiters-per-caller} when not set: a tenth of the room (at least one). */
    public static int defaultMaxWaitersPerCaller(int maxWaiters) {
        return Math.max(1, maxWaiters / 10);
    }

    public static final String ANY_MODEL = "";
    public static final String ANY_POOL = "";

    public WaitPolicy {
        maxWait = Map.copyOf(maxWait);
        priorityOrder = List.copyOf(priorityOrder);
    }

    /** The most specific setting wins: model and pool, then model, then pool, then the global one. */
    public Duration maxWait(String model, String pool) {
        Map<String, Duration> ofModel = maxWait.getOrDefault(model, Map.of());
        Map<String, Duration> global = maxWait.getOrDefault(ANY_MODEL, Map.of());
        Duration wait = ofModel.get(pool);
        if (wait == null) {
            wait = ofModel.get(ANY_POOL);
        }
        if (wait == null) {
            wait = global.get(pool);
        }
        if (wait == null) {
            wait = global.getOrDefault(ANY_POOL, Duration.ZERO);
        }
        return wait;
    }

    /** Whether any request can ever wait. */
    public boolean waits() {
        return maxWait.values().stream().flatMap(byPool -> byPool.values().stream()).anyMatch(d -> !d.isZero());
    }

    /**
     * The rank of a pool of one model among waiters, smaller first: the pools named in
     * {@code priority-order} in that order, then the other priorities by share (larger first), the
     * default pool last, as is a request for a model that is not configured ({@code model} null).
     */
    public int rank(ModelPolicy model, String pool) {
        if (model == null || pool.equals(ModelPolicy.DEFAULT_POOL)) {
            return Integer.MAX_VALUE;
        }
        int listed = priorityOrder.indexOf(pool);
        if (listed >= 0) {
            return listed;
        }
        List<String> byShare = model.shares().keySet().stream().filter(p -> !priorityOrder.contains(p))
                .sorted((a, b) -> Double.compare(model.shareOf(b), model.shareOf(a)) != 0
                        ? Double.compare(model.shareOf(b), model.shareOf(a)) : a.compareTo(b))
                .toList();
        return priorityOrder.size() + Math.max(0, byShare.indexOf(pool));
    }
}
