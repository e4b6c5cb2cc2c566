package dev.llmratelimit.engine;

import java.util.List;

/**
 * Every counter group one request touches, in the order they are checked (caller scopes key, user,
 * team, then model and pool, then whatever an extension adds, such as budgets): all pass and all
 * are counted, or none is counted and the first that fails is named.
 *
 * @param id          names the decision in the store, so that settling and compensating it are idempotent
 * @param model       the model as the request names it (messages)
 * @param pool        the pool the request counts in (headers, messages)
 * @param leaseMillis how long a parallel slot and the store's record of the decision live at most
 * @param cost        the money of a response's usage, for groups that limit money
 */
public record Plan(RequestId id, String model, String pool, PlanGroups groups, long leaseMillis, UsageCost cost) {

    public Plan(RequestId id, String model, String pool, List<CounterGroup> groups, long leaseMillis, UsageCost cost) {
        this(id, model, pool, PlanGroups.of(groups), leaseMillis, cost);
    }

    public Plan(String requestId, String model, String pool, List<CounterGroup> groups, long leaseMillis, UsageCost cost) {
        this(RequestId.of(requestId), model, pool, PlanGroups.of(groups), leaseMillis, cost);
    }

    /** The name of the decision. */
    public String requestId() {
        return id.value();
    }

    /** The same decision over other groups (a store's part of the plan): the id is shared. */
    public Plan withGroups(List<CounterGroup> other) {
        return new Plan(id, model, pool, other, leaseMillis, cost);
    }

    /** Part {@code index} of this decision, over other groups, for one of several stores (see {@link RequestId#part}). */
    public Plan part(int index, List<CounterGroup> other) {
        return new Plan(id.part(index), model, pool, other, leaseMillis, cost);
    }

    /** The index of the model group (the source of saturation), -1 if the plan has none. */
    public int modelIndex() {
        return groups.modelIndex();
    }

    public CounterGroup group(int index) {
        return groups.get(index);
    }

    /** The model group's limits ({@link Limits#UNLIMITED} without one), as messages show capacity. */
    public Limits modelLimits() {
        int index = modelIndex();
        return index < 0 ? Limits.UNLIMITED : groups.get(index).limits();
    }

    /** Whether settling needs the response's tokens. */
    public boolean countsTokens() {
        for (CounterGroup group : groups) {
            if (group.countsTokens()) {
                return true;
            }
        }
        return false;
    }

    /** The tokens the decision reserves on the model group, 0 when none. */
    public long reservedTokens() {
        return reserved(Dimension.TOKENS);
    }

    /** What the decision reserves of a windowed dimension on the model group, 0 when none. */
    public long reserved(Dimension dimension) {
        int index = modelIndex();
        return index < 0 ? 0 : groups.get(index).increments().of(dimension);
    }

    /** Whether a group of the plan is a work-conserving pool, whose limits depend on the pools active. */
    public boolean sharesWork() {
        return groups.sharesWork();
    }

    /**
     * This plan as decided: each work-conserving pool group held to its share among the pools
     * active ({@code active[i]} for group {@code i}, {@code null} for the other groups).
     */
    public Plan among(boolean[][] active) {
        return new Plan(id, model, pool, groups.among(active), leaseMillis, cost);
    }

    /**
     * Whether the request reached the model's limits: admitted, or refused by the model, its pool or
     * a group checked after them (a budget). This marks its pool active; a request its caller's own
     * limits refused did not ask the model and leaves its pool as it was.
     */
    public boolean askedModel(Verdict verdict) {
        int model = modelIndex();
        return model >= 0 && (verdict.admitted() || verdict.refusal().index() >= model);
    }

    /** The sharing of the plan's first work-conserving pool group as decided, {@code null} without one. */
    public PoolSharing sharing() {
        return groups.sharing();
    }

    /** This plan with more groups after its own (budgets). */
    public Plan plus(List<CounterGroup> more, UsageCost moreCost) {
        if (more.isEmpty()) {
            return this;
        }
        return new Plan(id, model, pool, PlanGroups.concat(groups, more), leaseMillis, moreCost == null ? cost : moreCost);
    }
}
