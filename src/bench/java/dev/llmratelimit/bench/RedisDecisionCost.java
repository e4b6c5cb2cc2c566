package dev.llmratelimit.bench;

import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.store.redis.RedisAdmissionStore;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.redis.redisson.Bucket4jRedisson;
import io.github.bucket4j.redis.redisson.cas.RedissonBasedProxyManager;
import org.redisson.Redisson;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.api.redisnode.RedisSingle;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Part 2: one decision with the Redis store against one local redis-server, next to the floor of one
 * round trip (a no-op script through the same Redisson codec and EVALSHA path, and PING) and to
 * Bucket4j's Redisson proxy manager with two buckets per decision.
 */
final class RedisDecisionCost implements AutoCloseable {

    /** Same key count and argument count as {@code decide.lua}, same reply shape (six integers). */
    private static final String NO_OP_SCRIPT = "return {0, 0, 0, 0, 0, 0}";

    record Result(String name, LatencySamples latencies, List<Double> throughputs) {
        double medianThroughput() {
            List<Double> sorted = throughputs.stream().sorted().toList();
            return sorted.get(sorted.size() / 2);
        }
    }

    private final BenchSettings settings;
    private final RedissonClient client;
    private final Map<String, Runnable> calls = new LinkedHashMap<>();

    RedisDecisionCost(BenchSettings settings, String redisAddress) {
        this.settings = settings;
        Config config = new Config();
        config.useSingleServer().setAddress(redisAddress);
        client = Redisson.create(config);

        RateLimiter limiter = new RateLimiter(DecisionBenchmark.threePoolPolicy(),
                RedisAdmissionStore.using(client, "bench:"));
        calls.put(OURS, () -> limiter.admit(AdmissionRequest.of("gpt-4o", "prod", null)));

        RScript script = client.getScript(StringCodec.INSTANCE);
        String sha = script.scriptLoad(NO_OP_SCRIPT);
        List<Object> keys = List.of("bench-noop:{gpt-4o}");
        Object[] args = {"60000", "1", "1", "1", "1", "1", "0.5", "r:prod", "t:prod"};
        calls.put(NO_OP, () -> script.evalSha("bench-noop:{gpt-4o}", RScript.Mode.READ_WRITE, sha,
                RScript.ReturnType.MULTI, keys, args));

        RedisSingle node = client.getRedisNodes(RedisNodes.SINGLE);
        calls.put("PING", () -> node.getInstance().ping());

        RedissonBasedProxyManager<String> proxies = Bucket4jRedisson.casBasedBuilder(((Redisson) client).getCommandExecutor())
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofMinutes(2)))
                .build();
        BucketProxy requests = proxies.builder().build("bench-b4j:requests", () -> minuteLimit(DecisionBenchmark.RPM));
        BucketProxy tokens = proxies.builder().build("bench-b4j:tokens", () -> minuteLimit(DecisionBenchmark.TPM));
        calls.put(BUCKET4J, () -> {
            if (requests.tryConsume(1)) {
                tokens.tryConsume(1);
            }
        });
    }

    static final String OURS = "llm-ratelimit decide (Redis store)";
    static final String NO_OP = "no-op Lua script (EVALSHA, Redisson, same codec)";
    static final String BUCKET4J = "Bucket4j Redisson proxy, 2 buckets";

    private static BucketConfiguration minuteLimit(long capacity) {
        return BucketConfiguration.builder()
                .addLimit(Bandwidth.builder().capacity(capacity).refillGreedy(capacity, Duration.ofMinutes(1)).build())
                .build();
    }

    List<Result> measure() throws InterruptedException {
        Map<String, Result> results = new LinkedHashMap<>();
        calls.keySet().forEach(name -> results.put(name,
                new Result(name, new LatencySamples(settings.redisSamples() * settings.rounds()), new ArrayList<>())));
        // Every variant is warm (Redisson's own code paths included) before any is measured.
        for (Runnable call : calls.values()) {
            throughput(call, settings.redisThroughputCalls() / 4);
        }
        for (int round = 0; round < settings.rounds(); round++) {
            recordLatencies(results);
            // Rounds interleave the variants, so drift of the machine touches all of them alike.
            for (Map.Entry<String, Runnable> call : calls.entrySet()) {
                results.get(call.getKey()).throughputs().add(throughput(call.getValue(), settings.redisThroughputCalls()));
            }
        }
        return List.copyOf(results.values());
    }

    /** One call of each variant in turn, so that every variant sees the same moments of the machine. */
    private void recordLatencies(Map<String, Result> results) {
        for (int i = 0; i < settings.redisWarmup(); i++) {
            calls.values().forEach(Runnable::run);
        }
        for (int i = 0; i < settings.redisSamples(); i++) {
            for (Map.Entry<String, Runnable> call : calls.entrySet()) {
                long start = System.nanoTime();
                call.getValue().run();
                results.get(call.getKey()).latencies().add(System.nanoTime() - start);
            }
        }
    }

    /** Calls per second of {@link BenchSettings#REDIS_THREADS} threads sharing a fixed number of calls. */
    private double throughput(Runnable call, int total) throws InterruptedException {
        AtomicInteger remaining = new AtomicInteger(total);
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < BenchSettings.REDIS_THREADS; i++) {
            Thread thread = new Thread(() -> {
                awaitQuietly(start);
                while (remaining.getAndDecrement() > 0) {
                    call.run();
                }
            });
            thread.start();
            threads.add(thread);
        }
        long begin = System.nanoTime();
        start.countDown();
        for (Thread thread : threads) {
            thread.join();
        }
        return total / ((System.nanoTime() - begin) / 1e9);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void write(Report report, List<Result> results, String redisVersion) {
        Result ours = find(results, OURS);
        Result noOp = find(results, NO_OP);
        Result bucket4j = find(results, BUCKET4J);
        report.heading("2. Decision cost, Redis store")
                .paragraph("One local `redis-server` " + redisVersion + " on 127.0.0.1, one Redisson client (default pool). "
                        + "Latency: one client thread, sequential synchronous calls, the variants taking turns call by call. "
                        + "Throughput: "
                        + BenchSettings.REDIS_THREADS + " client threads sharing a fixed number of calls. The no-op script "
                        + "has the decision's key and argument count and reply shape, so it is the floor of one EVALSHA "
                        + "round trip; Bucket4j's proxy manager is compare-and-swap based (a read and a CAS script per "
                        + "bucket), two buckets per decision (requests, then tokens). Throughput is the median over the rounds.");
        List<List<String>> rows = new ArrayList<>();
        for (Result result : results) {
            double p50 = result.latencies().percentileMicros(50);
            rows.add(List.of(result.name(), Report.fixed(p50, 0), Report.fixed(result.latencies().percentileMicros(99), 0),
                    Report.ratio(p50 / noOp.latencies().percentileMicros(50)),
                    Report.fixed(result.medianThroughput(), 0),
                    Report.ratio(result.medianThroughput() / noOp.medianThroughput())));
        }
        report.table(List.of("call", "p50 us (1 thread)", "p99 us", "p50 vs no-op",
                "calls/s (" + BenchSettings.REDIS_THREADS + " threads)", "throughput vs no-op"), rows);
        double latencyRatio = ours.latencies().percentileMicros(50) / noOp.latencies().percentileMicros(50);
        double throughputRatio = ours.medianThroughput() / noOp.medianThroughput();
        double vsBucket4j = ours.medianThroughput() / bucket4j.medianThroughput();
        report.target("p50 <= 1.3x the no-op script", latencyRatio <= 1.3, Report.ratio(latencyRatio))
                .target("throughput >= 0.8x the no-op script", throughputRatio >= 0.8, Report.ratio(throughputRatio))
                .target("throughput >= 1.0x Bucket4j on Redisson", vsBucket4j >= 1.0, Report.ratio(vsBucket4j))
                .endTargets();
    }

    static Result find(List<Result> results, String name) {
        return results.stream().filter(r -> r.name().equals(name)).findFirst().orElseThrow();
    }

    @Override
    public void close() {
        client.shutdown();
    }
}
