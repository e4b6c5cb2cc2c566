package dev.llmratelimit.engine;

/**
 * The first limit of a plan that failed.
 *
 * @param index       the group's position in the plan
 * @param limit       the limit that failed
 * @param current     what the counter held: requests or tokens of the window (sliding: weighted),
 *                    requests in flight, micro-dollars spent (settled)
 * @param resetMillis milliseconds until the refusal would clear if no other request came
 * @param reserved    micro-dollars that calls in flight hold on a budget beside what was spent; 0 otherwise
 */
public record Refusal(int index, CounterGroup group, Dimension dimension, long limit, long current, long resetMillis,
                      long reserved) {

    public Refusal(int index, CounterGroup group, Dimension dimension, long limit, long current, long resetMillis) {
        this(index, group, dimension, limit, current, resetMillis, 0);
    }

    /** This refusal at another index of the plan, clearing in {@code resetMillis}. */
    public Refusal at(int planIndex, long resetMillis) {
        return new Refusal(planIndex, group, dimension, limit, current, resetMillis, reserved);
    }

    /** Whole seconds to wait, at least 1; 1 for a parallel-request limit. */
    public long retryAfterSeconds() {
        return dimension == Dimension.PARALLEL_REQUESTS ? 1 : Math.max(1, (resetMillis + 999) / 1000);
    }

    /** What is left of the limit: {@code limit - current - reserved}, never below 0. */
    public long remaining() {
        return Math.max(0, limit - Saturating.add(current, reserved));
    }

    /** The model or pool limit that refused, as headers and messages name it; {@code null} for other groups. */
    public Limit modelLimit() {
        return Limit.of(group.kind(), dimension);
    }
}
