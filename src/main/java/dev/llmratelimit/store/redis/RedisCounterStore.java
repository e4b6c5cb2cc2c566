package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.CounterSnapshots;
import dev.llmratelimit.engine.CounterStore;
import dev.llmratelimit.engine.DecisionPlan;
import dev.llmratelimit.engine.DecisionRule;
import dev.llmratelimit.engine.Limit;
import dev.llmratelimit.engine.ModelCounters;
import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.engine.WindowCounts;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Counters in Redis, shared by every instance. A decision is one {@code decide.lua} call and a
 * recording or correction one {@code record.lua} call (each with {@code window.lua}, the window rule
 * both share, in front): one round trip each, atomic on the server, timed by the
 * server's clock; a snapshot ({@code snapshot.lua}, read only) is one round trip per model. Any Redisson failure (timeout, lost connection, shutdown) becomes a
 * {@link StoreUnavailableException}.
 */
public final class RedisCounterStore implements CounterStore, CounterSnapshots {

    static final LuaScript DECIDE = LuaScript.fromResources("window.lua", "decide.lua");
    static final LuaScript RECORD = LuaScript.fromResources("window.lua", "record.lua");
    static final LuaScript SNAPSHOT = LuaScript.fromResources("window.lua", "snapshot.lua");
    private static final Limit[] LIMITS = Limit.values();

    private final ScriptRunner redis;
    private final ConcurrentMap<DecisionPlan, ModelKeys> keysByPlan = new ConcurrentHashMap<>();

    private RedisCounterStore(ScriptRunner redis) {
        this.redis = redis;
    }

    /** A store on a client that the caller keeps and shuts down. */
    public static RedisCounterStore using(RedissonClient client, String keyPrefix) {
        return new RedisCounterStore(ScriptRunner.using(client, keyPrefix));
    }

    /** A store with its own client, shut down by {@link #close()}. */
    public static RedisCounterStore create(RedisStoreSettings settings) {
        return new RedisCounterStore(ScriptRunner.create(settings));
    }

    @Override
    public Verdict decide(DecisionPlan plan, long tokenEstimate) {
        ModelKeys keys = keysOf(plan);
        List<Long> read = redis.run(DECIDE, RScript.ReturnType.MULTI, keys.key, keys.keys, keys.decideArgs(tokenEstimate));
        // The script decided and counted; the verdict's figures come from the one Java rule.
        Verdict verdict = DecisionRule.decide(plan, new WindowCounts(read.get(1), read.get(2), read.get(3), read.get(4),
                read.get(5), read.get(6), read.get(7), read.get(8), read.get(9), read.get(10)), tokenEstimate);
        int refused = read.get(0).intValue();
        Limit scriptLimit = refused == 0 ? null : LIMITS[refused - 1];
        if (verdict.refusedBy() != scriptLimit) {
            // Only a bug can get here; on-store-failure then applies rather than an error page.
            throw new StoreUnavailableException("decide.lua refused by " + scriptLimit
                    + " where DecisionRule refuses by " + verdict.refusedBy(), null);
        }
        return verdict;
    }

    @Override
    public void record(DecisionPlan plan, long tokens, long windowEnd) {
        ModelKeys keys = keysOf(plan);
        redis.run(RECORD, RScript.ReturnType.INTEGER, keys.key, keys.keys,
                keys.windowMillis, keys.poolTokenField, Long.toString(tokens), Long.toString(windowEnd), keys.sliding);
    }

    @Override
    public ModelCounters snapshot(List<DecisionPlan> plans) {
        DecisionPlan plan = plans.get(0);
        String key = ModelKeys.keyOf(redis.keyPrefix(), plan.model());
        Object[] pools = plans.stream().map(DecisionPlan::pool).toArray();
        List<Long> read = redis.run(SNAPSHOT, RScript.ReturnType.MULTI, key, List.of(key), pools);
        int fields = 2 + 2 * pools.length;
        long[] stored = new long[fields];
        long[] previous = new long[fields];
        for (int i = 0; i < fields; i++) {
            stored[i] = read.get(2 + i);
            previous[i] = read.get(2 + fields + i);
        }
        long windowEnd = read.get(1) < 0 ? Long.MIN_VALUE : read.get(1);
        return ModelCounters.read(plan, windowEnd, read.get(0), stored, previous);
    }

    /** The key of a model's hash, as the scripts use it. */
    public String keyOf(String model) {
        return ModelKeys.keyOf(redis.keyPrefix(), model);
    }

    @Override
    public void close() {
        redis.close();
    }

    private ModelKeys keysOf(DecisionPlan plan) {
        ModelKeys keys = keysByPlan.get(plan);
        return keys != null ? keys : keysByPlan.computeIfAbsent(plan, p -> new ModelKeys(redis.keyPrefix(), p));
    }
}
