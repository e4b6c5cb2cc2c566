package dev.llmratelimit.engine;

import dev.llmratelimit.policy.Fairness;
import dev.llmratelimit.policy.ModelPolicy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The groups of one configured model, built once per policy: a model group per window its limits
 * use (the configured window first), each with a group per pool holding the pool's share of every
 * limit of that window; and what each pool's responses taught about their size.
 */
final class ModelPlans {

    /**
     * What a request of one pool starts from.
     *
     * @param groups         the model and pool groups of every window, in the order a plan checks them
     * @param expectedOutput what the pool's responses taught about their size
     */
    record PoolPlan(String name, PlanGroups groups, ExpectedOutput expectedOutput) {
    }

    final ModelPolicy model;
    /** By configured priority; the default pool is not one (a caller whose priority says "default" looks further). */
    private final Map<String, PoolPlan> poolPlans = new HashMap<>();
    private final PoolPlan defaultPool;
    /** The smallest model limit per windowed dimension, {@link Limits#NONE} where none. */
    private final long[] smallest = Verdict.noFigures();
    final ModelGroups groups;

    ModelPlans(ModelPolicy model, ScopeWindows windows, long windowMillis, LongSupplier clock) {
        this.model = model;
        Increments oneRequest = new Increments(1, 0, 0, false);
        Enforcement poolEnforcement = model.poolsEnforced()
                ? Enforcement.whenSaturated(model.saturationThreshold()) : Enforcement.TRACKED;
        List<ModelGroups.Window> modelWindows = new ArrayList<>();
        List<String> pools = List.copyOf(model.poolNames());
        Map<String, List<CounterGroup>> byPool = new HashMap<>();
        for (ScopeWindows.Window window : windows.of(model.limits(), true)) {
            CounterGroup modelGroup = new CounterGroup(GroupKind.MODEL, model.name(), "", window.window(),
                    new Limits(window.limits(), Limits.NONE, Limits.NONE), Enforcement.ALWAYS, oneRequest);
            noteSmallest(window.limits());
            List<CounterGroup> poolGroups = new ArrayList<>(pools.size());
            for (int self = 0; self < pools.size(); self++) {
                String pool = pools.get(self);
                CounterGroup poolGroup = new CounterGroup(GroupKind.POOL, model.name(), pool, window.window(),
                        new Limits(shares(window.limits(), model.shareOf(pool)), Limits.NONE, Limits.NONE),
                        poolEnforcement, oneRequest, sharing(model, pools, self, window.limits()));
                poolGroups.add(poolGroup);
                List<CounterGroup> groups = byPool.computeIfAbsent(pool, p -> new ArrayList<>(2));
                groups.add(modelGroup);
                groups.add(poolGroup);
            }
            modelWindows.add(new ModelGroups.Window(modelGroup, poolGroups));
        }
        PoolPlan shared = null;
        for (String pool : model.poolNames()) {
            PoolPlan plan = new PoolPlan(pool, PlanGroups.of(byPool.get(pool)), new ExpectedOutput(
                    model.expectedOutputTokens(), model.expectedOutputMinTokens(), windowMillis, clock));
            if (pool.equals(ModelPolicy.DEFAULT_POOL)) {
                shared = plan;
            } else {
                poolPlans.put(pool, plan);
            }
        }
        defaultPool = shared;
        groups = new ModelGroups(model.name(), modelWindows);
    }

    /**
     * Work-conserving fairness of pool {@code self} of {@code pools} in a window with these limits;
     * {@code null} for fixed shares. Every sharing of the model holds the same list of pools.
     */
    private static PoolSharing sharing(ModelPolicy model, List<String> pools, int self, long[] limits) {
        if (model.fairness() != Fairness.WORK_CONSERVING || !model.poolsEnforced()) {
            return null;
        }
        double[] shares = new double[pools.size()];
        for (int p = 0; p < shares.length; p++) {
            shares[p] = model.shareOf(pools.get(p));
        }
        return new PoolSharing(pools, shares, self, limits, null);
    }

    private static long[] shares(long[] limits, double share) {
        long[] pool = new long[limits.length];
        for (int i = 0; i < limits.length; i++) {
            pool[i] = limits[i] < 0 ? Limits.NONE : ModelPolicy.poolLimit(limits[i], share);
        }
        return pool;
    }

    private void noteSmallest(long[] limits) {
        for (int i = 0; i < limits.length; i++) {
            if (limits[i] >= 0 && (smallest[i] < 0 || limits[i] < smallest[i])) {
                smallest[i] = limits[i];
            }
        }
    }

    /**
     * The pool of a caller: the first of its candidate priorities that this model configures (team
     * priority before the caller's own, docs/identity.md), else the default pool.
     */
    PoolPlan poolOf(String preferred, String fallback) {
        PoolPlan pool = preferred == null ? null : poolPlans.get(preferred);
        if (pool == null && fallback != null) {
            pool = poolPlans.get(fallback);
        }
        return pool != null ? pool : defaultPool;
    }

    /** The model's smallest limit of a windowed dimension, {@link Limits#NONE} when it has none. */
    long smallestLimit(Dimension dimension) {
        return smallest[dimension.index()];
    }
}
