package dev.llmratelimit.bench;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.PromptTokens;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.store.redis.RedisAdmissionStore;
import dev.llmratelimit.usage.Usage;
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
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.config.Config;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Part 2: the engine's work for one request with the Redis store against one local redis-server
 * (admit before the call and settle after it: two scripts), and its decision alone, next to their
 * floors: two and one round trips of a no-op script through the same Redisson codec and EVALSHA
 * path, and PING; and next to Bucket4j's Redisson proxy manager with two buckets per decision.
 */
final class RedisDecisionCost implements AutoCloseable {

    /** The first words of this part's sentence of the summary, which a run of this part alone replaces. */
    static final String HEADLINE_OPENING = "Against one local";

    /**
     * The shape of {@code admit.lua} for the benchmark's plan (model and pool): two keys (the model's
     * hash and the request's marker), one argument (a MessagePack array of its 3 + 2 x 22 figures,
     * here all 64-bit integers, so longer than the real one), a reply of 2 + 2 x 9 integers.
     */
    private static final String NO_OP_SCRIPT = "return {" + String.join(", ", Arrays.asList(zeros(20))) + "}";
    private static final Usage USAGE = new Usage(10, 20, 0);

    record Result(String name, LatencySamples latencies, List<Double> throughputs) {
        double medianThroughput() {
            List<Double> sorted = throughputs.stream().sorted().toList();
            return sorted.get(sorted.size() / 2);
        }
    }

    private final BenchSettings settings;
    private final RedissonClient client;
    private final Map<String, Runnable> calls = new LinkedHashMap<>();
    /**
     * The admissions of the decision-alone variants, settled after each timed run: in service every
     * decision is settled, so its marker goes; left for their 10-minute lease they would pile up by
     * the hundred thousand and slow every variant measured after them.
     */
    private final Queue<Admission> unsettled = new ConcurrentLinkedQueue<>();

    RedisDecisionCost(BenchSettings settings, String redisAddress) {
        this.settings = settings;
        Config config = new Config();
        config.useSingleServer().setAddress(redisAddress);
        client = Redisson.create(config);

        RateLimiter limiter = new RateLimiter(DecisionBenchmark.threePoolPolicy(),
                RedisAdmissionStore.using(client, "bench:"));
        AdmissionRequest request = AdmissionRequest.of("gpt-4o", "prod", null).withTokens(PromptTokens.known(10), 20);
        calls.put(REQUEST, () -> limiter.admit(request).complete(USAGE));
        calls.put(DECIDE, () -> unsettled.add(limiter.admit(request)));
        RateLimiter workConserving = new RateLimiter(DecisionBenchmark.workConservingPolicy(),
                RedisAdmissionStore.using(client, "bench-wc:"));
        calls.put(DECIDE_WORK_CONSERVING, () -> unsettled.add(workConserving.admit(request)));

        RScript script = client.getScript(ByteArrayCodec.INSTANCE);
        String sha = script.scriptLoad(NO_OP_SCRIPT);
        List<Object> keys = List.of("bench-noop:{gpt-4o}", "bench-noop:{gpt-4o}:req:1");
        Object[] args = {noOpArgument(3 + 2 * 22)};
        Runnable noOp = () -> script.evalSha("bench-noop:{gpt-4o}", RScript.Mode.READ_WRITE, sha,
                RScript.ReturnType.MULTI, keys, args);
        calls.put(NO_OP_TWICE, () -> {
            noOp.run();
            noOp.run();
        });
        calls.put(NO_OP, noOp);

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

    static final String REQUEST = "llm-ratelimit admit + settle (2 scripts)";
    static final String DECIDE = "llm-ratelimit admit alone (1 script)";
    static final String DECIDE_WORK_CONSERVING = "llm-ratelimit admit alone, fairness=work-conserving";
    static final String NO_OP_TWICE = "no-op Lua script, 2 round trips";
    static final String NO_OP = "no-op Lua script, 1 round trip (EVALSHA, Redisson, same codec)";
    static final String BUCKET4J = "Bucket4j Redisson proxy, 2 buckets";

    /** A MessagePack array (header 0xdc) of {@code count} 64-bit integers (0xd3, 8 bytes) of 10^10. */
    private static byte[] noOpArgument(int count) {
        ByteBuffer bytes = ByteBuffer.allocate(3 + 9 * count).put((byte) 0xdc).putShort((short) count);
        for (int i = 0; i < count; i++) {
            bytes.put((byte) 0xd3).putLong(10_000_000_000L);
        }
        return bytes.array();
    }

    private static String[] zeros(int count) {
        String[] zeros = new String[count];
        Arrays.fill(zeros, "0");
        return zeros;
    }

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
            settleUnsettled();
        }
        for (int round = 0; round < settings.rounds(); round++) {
            recordLatencies(results);
            settleUnsettled();
            // Rounds interleave the variants, so drift of the machine touches all of them alike.
            for (Map.Entry<String, Runnable> call : calls.entrySet()) {
                results.get(call.getKey()).throughputs().add(throughput(call.getValue(), settings.redisThroughputCalls()));
                settleUnsettled();
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

    /** Aborts the decisions the timed run left, untimed. */
    private void settleUnsettled() throws InterruptedException {
        throughput(() -> {
            Admission admission = unsettled.poll();
            if (admission != null) {
                admission.abort();
            }
        }, unsettled.size());
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

    /** The summary's sentence on Redis: admit and settle beside their floor, the decision alone beside its own and Bucket4j's. */
    static String headline(List<Result> results) {
        Result request = find(results, REQUEST);
        Result decide = find(results, DECIDE);
        Result noOp = find(results, NO_OP);
        Result noOpTwice = find(results, NO_OP_TWICE);
        return HEADLINE_OPENING + " Redis, admit and settle take " + Report.ratio(request.latencies().percentileMicros(50)
                / noOpTwice.latencies().percentileMicros(50)) + " the median latency of two no-op script round trips and at "
                + BenchSettings.REDIS_THREADS + " threads have " + Report.ratio(request.medianThroughput() / noOpTwice.medianThroughput())
                + " their throughput; the decision alone has " + Report.ratio(decide.medianThroughput() / noOp.medianThroughput())
                + " the no-op script's throughput and " + Report.ratio(decide.medianThroughput() / find(results, BUCKET4J).medianThroughput())
                + " Bucket4j-on-Redisson's (two buckets).";
    }

    static void write(Report report, List<Result> results, String redisVersion) {
        report.heading("2. Decision cost, Redis store")
                .paragraph("One local `redis-server` " + redisVersion + " on 127.0.0.1, one Redisson client (default pool). "
                        + "Latency: one client thread, sequential synchronous calls, the variants taking turns call by call. "
                        + "Throughput: " + BenchSettings.REDIS_THREADS + " client threads sharing a fixed number of calls "
                        + "(a call of a two-step variant is both steps). A request is `admit` (one `admit.lua`) and, after "
                        + "the call, settling its usage (one `settle.lua`); its floor is two round trips of a no-op script "
                        + "with `admit.lua`'s keys, an argument at least its size (one MessagePack array of 64-bit "
                        + "integers, through the same byte-array codec) and its reply shape, that of the decision alone one. "
                        + "Bucket4j's proxy manager is compare-and-swap based (a read and a CAS script per bucket), two "
                        + "buckets per decision (requests, then tokens). Throughput is the median over the rounds. The "
                        + "decisions measured alone are aborted after each timed run, untimed: in service every decision "
                        + "is settled and its marker key goes, where left to their lease they would fill Redis with "
                        + "hundreds of thousands of keys and slow every variant measured after them.");
        List<List<String>> rows = new ArrayList<>();
        Result noOp = find(results, NO_OP);
        for (Result result : results) {
            double p50 = result.latencies().percentileMicros(50);
            rows.add(List.of(result.name(), Report.fixed(p50, 0), Report.fixed(result.latencies().percentileMicros(99), 0),
                    Report.ratio(p50 / noOp.latencies().percentileMicros(50)),
                    Report.fixed(result.medianThroughput(), 0),
                    Report.ratio(result.medianThroughput() / noOp.medianThroughput())));
        }
        report.table(List.of("call", "p50 us (1 thread)", "p99 us", "p50 vs 1 no-op",
                "calls/s (" + BenchSettings.REDIS_THREADS + " threads)", "throughput vs 1 no-op"), rows);
        Result request = find(results, REQUEST);
        Result noOpTwice = find(results, NO_OP_TWICE);
        double requestLatency = request.latencies().percentileMicros(50) / noOpTwice.latencies().percentileMicros(50);
        double requestThroughput = request.medianThroughput() / noOpTwice.medianThroughput();
        double decideThroughput = find(results, DECIDE).medianThroughput() / noOp.medianThroughput();
        double vsBucket4j = find(results, DECIDE).medianThroughput() / find(results, BUCKET4J).medianThroughput();
        Result decide = find(results, DECIDE);
        Result shared = find(results, DECIDE_WORK_CONSERVING);
        double fairnessLatency = shared.latencies().percentileMicros(50) / decide.latencies().percentileMicros(50);
        double fairnessThroughput = decide.medianThroughput() / shared.medianThroughput();
        report.paragraph("With `fairness=work-conserving` the decision also reads which pools asked within the window "
                + "(one `HMGET` of the model's activity hash) and marks its own pool (`HSET`, `PEXPIRE`), in the same "
                + "script: p50 " + Report.ratio(fairnessLatency) + " and throughput cost " + Report.ratio(fairnessThroughput)
                + " those of the decision without it.");
        report.target("admit + settle p50 <= 1.3x two no-op round trips", requestLatency <= 1.3, Report.ratio(requestLatency))
                .target("admit + settle throughput >= 0.8x two no-op round trips", requestThroughput >= 0.8,
                        Report.ratio(requestThroughput))
                .target("decision throughput >= 0.8x the no-op script", decideThroughput >= 0.8, Report.ratio(decideThroughput))
                .target("decision throughput >= 1.0x Bucket4j on Redisson", vsBucket4j >= 1.0, Report.ratio(vsBucket4j))
                .target("work-conserving decision p50 <= 1.2x the decision without it", fairnessLatency <= 1.2,
                        Report.ratio(fairnessLatency))
                .target("work-conserving decision throughput cost <= 1.2x", fairnessThroughput <= 1.2,
                        Report.ratio(fairnessThroughput))
                .endTargets();
    }

    /** The p50 of two no-op round trips in a row, one client thread: the floor of what the filter adds to a request. */
    static double twoRoundTripsMicros(List<Result> results) {
        return find(results, NO_OP_TWICE).latencies().percentileMicros(50);
    }

    static Result find(List<Result> results, String name) {
        return results.stream().filter(r -> r.name().equals(name)).findFirst().orElseThrow();
    }

    @Override
    public void close() {
        client.shutdown();
    }
}
