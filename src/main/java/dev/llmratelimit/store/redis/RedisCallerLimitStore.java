package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.CallerCounter;
import dev.llmratelimit.engine.CallerHold;
import dev.llmratelimit.engine.CallerLimitStore;
import dev.llmratelimit.engine.CallerLimitType;
import dev.llmratelimit.engine.CallerPlan;
import dev.llmratelimit.engine.CallerRefusal;
import dev.llmratelimit.engine.CallerVerdict;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Per-caller counters in Redis, shared by every instance: one script call per operation
 * ({@code caller-acquire.lua}, {@code caller-release.lua}, {@code caller-record.lua},
 * {@code caller-compensate.lua}), atomic on the server and timed by its clock. Slot ids are this
 * store's random id and a sequence number, so instances never share one.
 */
public final class RedisCallerLimitStore implements CallerLimitStore {

    private static final LuaScript ACQUIRE = LuaScript.fromResources("caller-acquire.lua");
    private static final LuaScript RELEASE = LuaScript.fromResources("caller-release.lua");
    private static final LuaScript RECORD = LuaScript.fromResources("caller-record.lua");
    private static final LuaScript COMPENSATE = LuaScript.fromResources("caller-compensate.lua");
    private static final CallerLimitType[] TYPES = CallerLimitType.values();

    private final ScriptRunner redis;
    private final String keyPrefix;
    private final String instanceId = UUID.randomUUID().toString();
    private final AtomicLong nextSlot = new AtomicLong();

    private RedisCallerLimitStore(ScriptRunner redis) {
        this.redis = redis;
        this.keyPrefix = redis.keyPrefix();
    }

    /** A store on a client that the caller keeps and shuts down (the model store's, typically). */
    public static RedisCallerLimitStore using(RedissonClient client, String keyPrefix) {
        return new RedisCallerLimitStore(ScriptRunner.using(client, keyPrefix));
    }

    /** A store with its own client, shut down by {@link #close()}. */
    public static RedisCallerLimitStore create(RedisStoreSettings settings) {
        return new RedisCallerLimitStore(ScriptRunner.create(settings));
    }

    @Override
    public CallerVerdict acquire(CallerPlan plan) {
        List<CallerCounter> counters = plan.counters();
        List<Object> keys = new ArrayList<>(counters.size() * 2);
        Object[] args = new Object[3 + counters.size() * 3];
        args[0] = Long.toString(plan.windowMillis());
        args[1] = Long.toString(plan.leaseMillis());
        String slotId = plan.limitsParallel() ? instanceId + ':' + nextSlot.incrementAndGet() : "";
        args[2] = slotId;
        for (int i = 0; i < counters.size(); i++) {
            CallerCounter counter = counters.get(i);
            String key = CallerKeys.counterKey(keyPrefix, counter);
            keys.add(key);
            keys.add(CallerKeys.slotsKey(key));
            args[3 + 3 * i] = Long.toString(counter.rpmLimit());
            args[4 + 3 * i] = Long.toString(counter.tpmLimit());
            args[5 + 3 * i] = Long.toString(counter.maxParallelRequests());
        }
        List<Long> result = run(ACQUIRE, RScript.ReturnType.MULTI, keys, args);
        int refusedIndex = result.get(0).intValue();
        if (refusedIndex > 0) {
            return CallerVerdict.refused(new CallerRefusal(counters.get(refusedIndex - 1),
                    TYPES[result.get(1).intValue() - 1], result.get(2), result.get(3), result.get(4)));
        }
        long[] windowEnds = new long[counters.size()];
        for (int i = 0; i < windowEnds.length; i++) {
            windowEnds[i] = result.get(i + 1);
        }
        return CallerVerdict.admitted(new CallerHold(slotId.isEmpty() ? null : slotId, windowEnds));
    }

    @Override
    public void release(CallerPlan plan, CallerHold hold) {
        if (hold.slotId() == null) {
            return;
        }
        List<Object> keys = new ArrayList<>(3);
        for (CallerCounter counter : plan.counters()) {
            if (counter.maxParallelRequests() > 0) {
                keys.add(CallerKeys.slotsKey(CallerKeys.counterKey(keyPrefix, counter)));
            }
        }
        run(RELEASE, RScript.ReturnType.INTEGER, keys, hold.slotId());
    }

    @Override
    public void record(CallerPlan plan, long tokens) {
        List<Object> keys = new ArrayList<>(3);
        for (CallerCounter counter : plan.counters()) {
            if (counter.tpmLimit() > 0) {
                keys.add(CallerKeys.counterKey(keyPrefix, counter));
            }
        }
        if (!keys.isEmpty()) {
            run(RECORD, RScript.ReturnType.INTEGER, keys, Long.toString(plan.windowMillis()), Long.toString(tokens));
        }
    }

    @Override
    public void compensate(CallerPlan plan, CallerHold hold) {
        List<CallerCounter> counters = plan.counters();
        List<Object> keys = new ArrayList<>(counters.size() * 2);
        Object[] args = new Object[1 + counters.size()];
        args[0] = hold.slotId() == null ? "" : hold.slotId();
        for (int i = 0; i < counters.size(); i++) {
            String key = CallerKeys.counterKey(keyPrefix, counters.get(i));
            keys.add(key);
            keys.add(CallerKeys.slotsKey(key));
            args[1 + i] = Long.toString(hold.windowEnd(i));
        }
        run(COMPENSATE, RScript.ReturnType.INTEGER, keys, args);
    }

    @Override
    public void close() {
        redis.close();
    }

    private <R> R run(LuaScript lua, RScript.ReturnType type, List<Object> keys, Object... args) {
        return redis.run(lua, type, (String) keys.get(0), keys, args);
    }
}
