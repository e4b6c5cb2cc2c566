package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.GroupCounts;
import dev.llmratelimit.engine.ModelCounters;
import dev.llmratelimit.engine.ModelGroups;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.PlanRule;
import dev.llmratelimit.engine.PoolSharing;
import dev.llmratelimit.engine.Refusal;
import dev.llmratelimit.engine.Settlement;
import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.engine.VerdictFigures;
import dev.llmratelimit.engine.WindowCounters;
import dev.llmratelimit.store.UncancelledRefusalException;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Counters in Redis, shared by every instance. A decision is one {@code admit.lua} call and its
 * settlement one {@code settle.lua} call (each with {@code window.lua}, the window rule both
 * share, in front), whatever groups the plan holds: one round trip each with standalone or
 * sentinel Redis. In Redis Cluster each hash slot the plan touches gets its own call, in plan
 * order; when a later slot refuses or fails, the earlier ones are cancelled by request id (a cancel
 * without answer makes the refusal an {@link UncancelledRefusalException}, so it is sent again). Atomic on
 * the server and timed by its clock. Any Redisson failure becomes a {@link StoreUnavailableException}.
 * The script decides ({@code admit.lua} mirrors {@code PlanRule}); this class only assembles its
 * answer into a verdict.
 */
public final class RedisAdmissionStore implements AdmissionStore {

    static final LuaScript ADMIT = LuaScript.fromResources("window.lua", "admit.lua");
    static final LuaScript SETTLE = LuaScript.fromResources("window.lua", "settle.lua");
    static final LuaScript SNAPSHOT = LuaScript.fromResources("window.lua", "snapshot.lua");
    static final LuaScript BUDGET = LuaScript.fromResources("window.lua", "budget.lua");
    /** The field letters of the windowed dimensions in index order, as snapshot.lua reads them. */
    private static final String SNAPSHOT_LETTERS = Dimension.WINDOWED.stream()
            .map(dimension -> String.valueOf(dimension.field())).collect(Collectors.joining());
    /** What admit.lua returns per group after its windowed dimensions' counts. */
    private static final int FIGURES_PER_GROUP = 5;

    private final ScriptRunner redis;
    private final boolean cluster;
    /** Each call's circuit, {@code null} for a store whose caller puts one circuit around it. */
    private final NodeCircuits circuits;

    private RedisAdmissionStore(ScriptRunner redis, boolean cluster, NodeCircuits circuits) {
        this.redis = redis;
        this.cluster = cluster;
        this.circuits = circuits;
    }

    /** A store on a client that the caller keeps and shuts down. */
    public static RedisAdmissionStore using(RedissonClient client, String keyPrefix) {
        return using(client, keyPrefix, null);
    }

    /**
     * A store on a client that the caller keeps and shuts down, each call through the circuit of
     * the node it goes to (so in a cluster a dead master suspends nothing on the others).
     */
    public static RedisAdmissionStore using(RedissonClient client, String keyPrefix, NodeCircuits circuits) {
        return new RedisAdmissionStore(ScriptRunner.using(client, keyPrefix), client.getConfig().isClusterConfig(), circuits);
    }

    /** A store with its own client, shut down by {@link #close()}. */
    public static RedisAdmissionStore create(RedisStoreSettings settings) {
        ScriptRunner runner = ScriptRunner.create(settings);
        return new RedisAdmissionStore(runner, runner.isCluster(), null);
    }

    /** One script call, through the circuit of the node that owns the routing key when the store has circuits. */
    private <R> R throughCircuit(String routingKey, Supplier<R> call) {
        return circuits == null ? call.get() : circuits.call(routingKey, call);
    }

    @Override
    public Verdict decide(Plan plan) {
        List<SlotCall> calls = SlotCall.of(plan, this, redis.keyPrefix(), cluster);
        long[] countedIn = new long[plan.groups().size()];
        Verdict headline = null;
        for (int c = 0; c < calls.size(); c++) {
            SlotCall call = calls.get(c);
            // A call that fails may still run later: whoever catches the failure cancels the request id.
            Verdict verdict;
            try {
                verdict = admit(call, countedIn);
            } catch (StoreUnavailableException e) {
                throw failedAfter(calls.subList(0, c), e);
            }
            if (!verdict.admitted()) {
                StoreUnavailableException failure = cancel(calls.subList(0, c));
                if (failure != null) {
                    throw new UncancelledRefusalException(verdict, failure);
                }
                return verdict;
            }
            if (headline == null || call.subPlan.modelIndex() >= 0) {
                headline = verdict;
            }
        }
        plan.id().keep(new CountedIn(countedIn));
        return headline;
    }

    /**
     * The record a decision keeps on its id: per plan group the end of the window it counted in. Its
     * own type, so that a local decision of the same id during an outage (whose record the memory
     * store keeps) is never taken for it.
     */
    private record CountedIn(long[] windowEnds) {
    }

    /**
     * The failure of a call made after {@code counted} ones counted the request: those are
     * cancelled now (their nodes just answered), so what the failure leaves applied is at most what
     * the failed call itself may still apply, which its catcher cancels or settles. A failure that
     * certainly did not run becomes one that may have run when a cancel got no answer, so the
     * catcher cancels the whole decision again (or compensates it).
     */
    private StoreUnavailableException failedAfter(List<SlotCall> counted, StoreUnavailableException failure) {
        StoreUnavailableException uncancelled = cancel(counted);
        if (uncancelled == null || failure.mayHaveRun()) {
            return failure;
        }
        return new StoreUnavailableException(failure.getMessage()
                + "; the cancel of the hash slots that counted the request got no answer", failure);
    }

    /** One slot's decision; the end of the window each of its groups counted in goes into {@code countedIn}, by plan index. */
    private Verdict admit(SlotCall call, long[] countedIn) {
        List<Long> read = throughCircuit(call.routingKey(),
                () -> redis.run(ADMIT, RScript.ReturnType.MULTI, call.routingKey(), call.keys, call.admitArgs()));
        int refusedAt = read.get(0).intValue();
        if (refusedAt < 0) {
            // Cancelled before it ran, or decided already: a client retry of a call whose first run
            // counted. That run must be cancelled or settled like any decision without an answer.
            throw new StoreUnavailableException("The request id was already decided or cancelled", null);
        }
        Plan plan = call.subPlan;
        GroupCounts[] counts = new GroupCounts[call.planIndexes.length];
        boolean[][] active = new boolean[counts.length][];
        int at = 2;
        for (int i = 0; i < counts.length; i++) {
            long[] current = new long[Dimension.WINDOWED.size()];
            long[] previous = new long[current.length];
            for (Dimension dimension : SlotCall.dimensionsOf(plan.group(i))) {
                current[dimension.index()] = read.get(at++);
                previous[dimension.index()] = read.get(at++);
            }
            counts[i] = GroupCounts.of(current, previous, read.get(at), read.get(at + 1), read.get(at + 2),
                    read.get(at + 3), read.get(at + 4));
            countedIn[call.planIndexes[i]] = read.get(at + 4);
            at += FIGURES_PER_GROUP;
            PoolSharing sharing = plan.group(i).sharing();
            if (sharing != null) {
                active[i] = new boolean[sharing.pools().size()];
                for (int k = 0; k < active[i].length; k++) {
                    active[i][k] = read.get(at++) == 1;
                }
            }
        }
        // The script decided and counted; Java only assembles its answer with the verdict's figures.
        Plan decided = plan.sharesWork() ? plan.among(active) : plan;
        Refusal refusal = null;
        if (refusedAt > 0) {
            int index = refusedAt - 1;
            Dimension dimension = Dimension.values()[read.get(1).intValue() - 1];
            refusal = PlanRule.refusal(index, decided.group(index), counts[index], dimension);
        }
        Verdict verdict = VerdictFigures.of(decided, counts, PlanRule.saturation(decided, counts), refusal);
        return verdict.admitted() ? verdict : verdict.remapped(call.planIndexes, verdict.budget());
    }

    /** Cancels these calls' decisions; returns the last failure, {@code null} when every cancel was answered. */
    private StoreUnavailableException cancel(List<SlotCall> calls) {
        StoreUnavailableException failure = null;
        for (SlotCall call : calls) {
            try {
                settle(call, Settlement.CANCEL, null);
            } catch (StoreUnavailableException e) {
                failure = e;                            // the other slots are still cancelled
            }
        }
        return failure;
    }

    /**
     * Settles each slot's part. The ends of the windows the decision counted in, kept on its id when
     * it was answered, tell {@code settle.lua} exactly where to take a reservation back, whatever the
     * window's length is now (a reload may have changed it); without them (a decision that got no
     * answer, a settlement sent again) the script finds the window from the decision's time.
     */
    @Override
    public void settle(Plan plan, Settlement settlement) {
        CountedIn counted = plan.id().take(CountedIn.class);
        long[] countedIn = counted == null ? null : counted.windowEnds();
        StoreUnavailableException failure = null;
        for (SlotCall call : SlotCall.of(plan, this, redis.keyPrefix(), cluster)) {
            try {
                settle(call, settlement, countedIn);
            } catch (StoreUnavailableException e) {
                failure = e;                            // the other slots are still settled
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private void settle(SlotCall call, Settlement settlement, long[] countedIn) {
        throughCircuit(call.routingKey(), () -> redis.run(SETTLE, RScript.ReturnType.INTEGER, call.routingKey(), call.keys,
                call.settleArgs(settlement, countedIn)));
    }

    /** One read-only {@code snapshot.lua} call on the model's hashes (one per window, all in its hash slot). */
    @Override
    public ModelCounters snapshot(ModelGroups model) {
        String key = keyOf(model.name());
        List<Object> hashes = new ArrayList<>(model.windows().size() + 1);
        model.windows().forEach(window -> hashes.add(GroupKeys.of(redis.keyPrefix(), window.model()).hash()));
        if (model.sharesWork()) {
            hashes.add(GroupKeys.of(redis.keyPrefix(), model.pools().get(0)).activity());
        }
        List<CounterGroup> pools = model.pools();
        Object[] args = new Object[2 + pools.size()];
        args[0] = SNAPSHOT_LETTERS;
        args[1] = Integer.toString(model.windows().size());
        for (int p = 0; p < pools.size(); p++) {
            args[2 + p] = pools.get(p).member();
        }
        List<Long> read = throughCircuit(key, () -> redis.run(SNAPSHOT, RScript.ReturnType.MULTI, key, hashes, args));
        int fields = Dimension.WINDOWED.size() * (1 + pools.size());
        List<WindowCounters> windows = new ArrayList<>(hashes.size());
        int at = 1;
        for (ModelGroups.Window window : model.windows()) {
            long[] stored = new long[fields];
            long[] previous = new long[fields];
            for (int i = 0; i < fields; i++) {
                stored[i] = read.get(at + 1 + i);
                previous[i] = read.get(at + 1 + fields + i);
            }
            long windowEnd = read.get(at) < 0 ? Long.MIN_VALUE : read.get(at);
            windows.add(WindowCounters.read(window.model().window(), windowEnd, read.get(0), stored, previous));
            at += 1 + 2 * fields;
        }
        if (!model.sharesWork()) {
            return new ModelCounters(windows);
        }
        boolean[] active = new boolean[pools.size()];
        long since = read.get(0) - model.model().window().millis();
        for (int p = 0; p < active.length; p++) {
            active[p] = read.get(at + p) > since;
        }
        return new ModelCounters(windows, active);
    }

    /** One read-only {@code budget.lua} call per budget (each budget lives in its own hash slot). */
    @Override
    public long[][] budgets(List<CounterGroup> groups) {
        long[][] held = new long[groups.size()][];
        for (int i = 0; i < held.length; i++) {
            GroupKeys keys = GroupKeys.of(redis.keyPrefix(), groups.get(i));
            List<Long> read = redis.run(BUDGET, RScript.ReturnType.MULTI, keys.hash(), List.of(keys.hash(), keys.leases()));
            held[i] = new long[] {read.get(0), read.get(1)};
        }
        return held;
    }

    /** The key of a model's hash, as the scripts use it. */
    public String keyOf(String model) {
        return GroupKeys.modelKey(redis.keyPrefix(), model);
    }

    @Override
    public void close() {
        redis.close();
    }
}
