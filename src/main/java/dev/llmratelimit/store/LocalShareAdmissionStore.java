package dev.llmratelimit.store;

import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.Limits;
import dev.llmratelimit.engine.PoolSharing;
import dev.llmratelimit.engine.ModelCounters;
import dev.llmratelimit.engine.ModelGroups;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.RequestId;
import dev.llmratelimit.engine.Settlement;
import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.engine.ThrottledLog;
import dev.llmratelimit.engine.Verdict;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;

/**
 * {@code on-store-failure=local}: while the shared store cannot answer, every decision is made on
 * this instance alone, in a store of its own (in memory), on the instance's share of every limit
 * (requests, tokens, parallel slots, money: the limit divided by the live instances it last saw,
 * rounded up), so an outage neither refuses everything nor admits without limit. A decision the
 * shared store may still run late is cancelled there (queued by the shared store's compensations).
 * Each decision asks the shared store first, so limiting goes back to it as soon as it answers; a
 * request decided locally is settled locally. What was served locally is not carried over to the
 * shared windows.
 */
public final class LocalShareAdmissionStore implements AdmissionStore {

    private static final ThrottledLog LOCAL = new ThrottledLog(LocalShareAdmissionStore.class, System.Logger.Level.WARNING);

    private final AdmissionStore shared;
    private final AdmissionStore local;
    private final IntSupplier liveInstances;
    private final Set<RequestId> decidedLocally = ConcurrentHashMap.newKeySet();
    private final LongAdder localDecisions = new LongAdder();

    /**
     * @param shared        the shared store, behind its compensations (a cancel it cannot send is queued)
     * @param local         this instance's own store
     * @param liveInstances how many instances share the capacity, as last seen (at least 1)
     */
    public LocalShareAdmissionStore(AdmissionStore shared, AdmissionStore local, IntSupplier liveInstances) {
        this.shared = shared;
        this.local = local;
        this.liveInstances = liveInstances;
    }

    @Override
    public Verdict decide(Plan plan) {
        try {
            return shared.decide(plan);
        } catch (StoreUnavailableException e) {
            if (e.mayHaveRun()) {
                shared.settle(plan, Settlement.CANCEL);      // counted here instead
            }
            int instances = Math.max(1, liveInstances.getAsInt());
            LOCAL.log(e.getMessage() + "; deciding on this instance's share (1/" + instances + ") of every limit", null);
            Verdict verdict = local.decide(share(plan, instances));
            localDecisions.increment();
            if (verdict.admitted()) {
                decidedLocally.add(plan.id());
            }
            return verdict;
        }
    }

    @Override
    public void settle(Plan plan, Settlement settlement) {
        if (decidedLocally.remove(plan.id())) {
            local.settle(plan, settlement);
        } else {
            shared.settle(plan, settlement);
        }
    }

    /**
     * The plan with every limit divided among {@code instances}, rounded up (a limit of 0 stays 0): the
     * same counters, so what the local store compiled for them is used again.
     */
    static Plan share(Plan plan, int instances) {
        if (instances == 1) {
            return plan;
        }
        CounterGroup[] groups = new CounterGroup[plan.groups().size()];
        for (int i = 0; i < groups.length; i++) {
            CounterGroup group = plan.group(i);
            Limits limits = group.limits();
            long[] windowed = new long[Dimension.WINDOWED.size()];
            for (Dimension dimension : Dimension.WINDOWED) {
                windowed[dimension.index()] = share(limits.of(dimension), instances);
            }
            PoolSharing sharing = group.sharing();
            groups[i] = new CounterGroup(group.kind(), group.id(), group.member(), group.window(),
                    new Limits(windowed, share(limits.parallel(), instances), share(limits.micros(), instances)),
                    group.enforcement(), group.increments(),
                    sharing == null ? null : sharing.withCapacity(share(sharing.capacity(), instances)));
        }
        return plan.withGroups(plan.groups().replacing(groups));
    }

    private static long[] share(long[] limits, int instances) {
        long[] shared = new long[limits.length];
        for (int i = 0; i < limits.length; i++) {
            shared[i] = share(limits[i], instances);
        }
        return shared;
    }

    private static long share(long limit, int instances) {
        return limit <= 0 ? limit : (limit + instances - 1) / instances;
    }

    /** Decisions made on this instance's share since start (the shared store did not answer). */
    public long localDecisions() {
        return localDecisions.sum();
    }

    @Override
    public ModelCounters snapshot(ModelGroups model) {
        return shared.snapshot(model);
    }

    /** Budgets live in the budget store beside the counters, never in an instance's share. */
    @Override
    public long[][] budgets(List<CounterGroup> groups) {
        return shared.budgets(groups);
    }

    @Override
    public void close() {
        try {
            shared.close();
        } finally {
            local.close();
        }
    }
}
