package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.StoreUnavailableException;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

/**
 * How many instances share the capacity: each one says it is alive in Redis every
 * {@code interval} (one small script, {@code instances.lua}, on a daemon thread; nothing on the
 * path of a request) and counts as alive for three intervals. The count last seen stays when Redis
 * does not answer: it is what {@code on-store-failure=local} divides every limit by.
 */
public final class InstanceRegistry implements IntSupplier, AutoCloseable {

    static final LuaScript ANNOUNCE = LuaScript.fromResources("window.lua", "instances.lua");

    private final ScriptRunner redis;
    private final String key;
    private final String instanceId = Long.toString(new SecureRandom().nextLong() & Long.MAX_VALUE, 36);
    private final long aliveMillis;
    private final AtomicInteger lastSeen = new AtomicInteger(1);
    private ScheduledExecutorService timer;

    private InstanceRegistry(ScriptRunner redis, Duration interval) {
        this.redis = redis;
        this.key = redis.keyPrefix() + "{instances}";
        this.aliveMillis = interval.toMillis() * 3;
    }

    /** A registry that does not announce by itself ({@link #announce()} does, once). */
    public static InstanceRegistry on(RedissonClient client, String keyPrefix, Duration interval) {
        return new InstanceRegistry(ScriptRunner.using(client, keyPrefix), interval);
    }

    /** A registry that announces now and then every {@code interval}, until closed. */
    public static InstanceRegistry announcing(RedissonClient client, String keyPrefix, Duration interval) {
        InstanceRegistry registry = on(client, keyPrefix, interval);
        registry.timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "llm-ratelimit-instances");
            thread.setDaemon(true);
            return thread;
        });
        registry.timer.scheduleWithFixedDelay(registry::announce, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
        return registry;
    }

    /** Says this instance is alive and reads how many are; keeps the last count when Redis does not answer. */
    public void announce() {
        try {
            Long live = redis.run(ANNOUNCE, RScript.ReturnType.INTEGER, key, List.of(key), instanceId,
                    Long.toString(aliveMillis));
            lastSeen.set(Math.max(1, live.intValue()));
        } catch (StoreUnavailableException e) {
            // Redis is away: the count last seen is the one to divide by.
        }
    }

    /** The live instances last seen, this one included. */
    @Override
    public int getAsInt() {
        return lastSeen.get();
    }

    @Override
    public void close() {
        if (timer != null) {
            timer.shutdownNow();
        }
    }
}
