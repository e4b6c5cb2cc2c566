package dev.llmratelimit.bench;

import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.store.redis.RedisAdmissionStore;
import dev.llmratelimit.testsupport.Policies;
import dev.llmratelimit.testsupport.RedisServer;
import dev.llmratelimit.usage.Usage;
import org.openjdk.jol.info.GraphLayout;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.util.ArrayList;
import java.util.List;

/**
 * Part 5: what the counters cost in memory. Object graphs are sized with JOL (the shallow sizes of
 * every reachable object), which is exact and needs no garbage-collector timing.
 */
final class MemoryFootprint {

    static final int MODELS = 10;
    static final int PRIORITIES = 4;
    static final int UNKNOWN_REQUESTS = 1_000_000;
    static final int UNKNOWN_MODELS = 100_000;

    /** Bytes, before and after the flood of unconfigured models. */
    record Result(long storeBytes, long limiterBytes, long storeBytesAfterFlood, long limiterBytesAfterFlood,
                  double redisBytesPerModel, long redisKeysBefore, long redisKeysAfterFlood) {
    }

    private final RedisServer redis;

    MemoryFootprint(RedisServer redis) {
        this.redis = redis;
    }

    static RateLimitPolicy tenModelsFivePools() {
        List<String> lines = new ArrayList<>();
        for (int m = 0; m < MODELS; m++) {
            lines.add("models.model-" + m + ".rpm=1000000");
            lines.add("models.model-" + m + ".tpm=100000000");
        }
        for (int p = 0; p < PRIORITIES; p++) {
            lines.add("reservation.priority-" + p + "=0.2");
        }
        return Policies.policy(lines.toArray(String[]::new));
    }

    Result measure() {
        RateLimitPolicy policy = tenModelsFivePools();
        MemoryAdmissionStore store = new MemoryAdmissionStore();
        RateLimiter limiter = new RateLimiter(policy, store);
        touchEveryPool(limiter);
        long storeBytes = GraphLayout.parseInstance(store).totalSize();
        long limiterBytes = GraphLayout.parseInstance(limiter).totalSize();
        floodWithUnknownModels(limiter);
        long storeAfter = GraphLayout.parseInstance(store).totalSize();
        long limiterAfter = GraphLayout.parseInstance(limiter).totalSize();

        Config config = new Config();
        config.useSingleServer().setAddress(redis.address());
        RedissonClient client = Redisson.create(config);
        try (RedisAdmissionStore redisStore = RedisAdmissionStore.using(client, "bench-mem:")) {
            redis.call("FLUSHALL");
            RateLimiter redisLimiter = new RateLimiter(policy, redisStore);
            touchEveryPool(redisLimiter);
            long total = 0;
            for (int m = 0; m < MODELS; m++) {
                total += Long.parseLong(redis.call("MEMORY", "USAGE", redisStore.keyOf("model-" + m)).toString());
            }
            long keysBefore = dbSize();
            floodWithUnknownModels(redisLimiter);
            return new Result(storeBytes, limiterBytes, storeAfter, limiterAfter, total / (double) MODELS,
                    keysBefore, dbSize());
        } finally {
            client.shutdown();
        }
    }

    private long dbSize() {
        return Long.parseLong(redis.call("DBSIZE").toString());
    }

    /** One admitted request with usage in every pool of every model, so every counter exists. */
    private static void touchEveryPool(RateLimiter limiter) {
        for (int m = 0; m < MODELS; m++) {
            for (int p = -1; p < PRIORITIES; p++) {
                Admission admission = limiter.admit(AdmissionRequest.of("model-" + m, p < 0 ? null : "priority-" + p, null));
                admission.complete(new Usage(10, 20, 0));
            }
        }
    }

    private static void floodWithUnknownModels(RateLimiter limiter) {
        String[] names = new String[UNKNOWN_MODELS];
        for (int i = 0; i < names.length; i++) {
            names[i] = "unknown-model-" + i;
        }
        for (int i = 0; i < UNKNOWN_REQUESTS; i++) {
            limiter.admit(AdmissionRequest.of(names[i % names.length], "priority-0", null)).complete(new Usage(10, 20, 0));
        }
    }

    static void write(Report report, Result result) {
        report.heading("5. Memory")
                .paragraph(MODELS + " models with `rpm` and `tpm`, " + PRIORITIES + " reserved priorities plus the default "
                        + "pool (5 pools each); one request with usage recorded in every pool, so every counter exists. "
                        + "Then " + String.format("%,d", UNKNOWN_REQUESTS) + " requests naming "
                        + String.format("%,d", UNKNOWN_MODELS) + " distinct unconfigured models (default "
                        + "`reject-unknown-models=false`: admitted, not counted). Heap sizes are JOL's retained-graph "
                        + "sizes (every object reachable from the store or limiter).");
        report.table(List.of("what", "bytes", "after the unconfigured flood"), List.of(
                List.of("in-memory store, 10 models x 5 pools", Long.toString(result.storeBytes()),
                        Long.toString(result.storeBytesAfterFlood())),
                List.of("whole limiter (policy, plans, store)", Long.toString(result.limiterBytes()),
                        Long.toString(result.limiterBytesAfterFlood())),
                List.of("Redis `MEMORY USAGE` per model key (5 pools)", Report.fixed(result.redisBytesPerModel(), 0), "-"),
                List.of("Redis keys (DBSIZE)", Long.toString(result.redisKeysBefore()),
                        Long.toString(result.redisKeysAfterFlood()))));
        boolean noGrowth = result.storeBytes() == result.storeBytesAfterFlood()
                && result.limiterBytes() == result.limiterBytesAfterFlood()
                && result.redisKeysBefore() == result.redisKeysAfterFlood();
        report.target("no growth after " + String.format("%,d", UNKNOWN_REQUESTS) + " requests naming unconfigured models",
                        noGrowth, (result.storeBytesAfterFlood() - result.storeBytes()) + " bytes store, "
                                + (result.limiterBytesAfterFlood() - result.limiterBytes()) + " bytes limiter, "
                                + (result.redisKeysAfterFlood() - result.redisKeysBefore()) + " Redis keys")
                .endTargets();
    }
}
