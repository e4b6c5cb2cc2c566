package dev.llmratelimit.bench;

import dev.llmratelimit.outbound.BucketKey;
import dev.llmratelimit.outbound.BucketLimits;
import dev.llmratelimit.outbound.Correction;
import dev.llmratelimit.outbound.FakeProvider;
import dev.llmratelimit.outbound.ForwardingOutboundStore;
import dev.llmratelimit.outbound.OutboundLimitException;
import dev.llmratelimit.outbound.OutboundLimiter;
import dev.llmratelimit.outbound.OutboundStore;
import dev.llmratelimit.outbound.ProviderSettings;
import dev.llmratelimit.outbound.Tokens;
import dev.llmratelimit.outbound.http.LimitedHttpClient;
import dev.llmratelimit.outbound.redis.RedisOutboundStore;
import dev.llmratelimit.store.redis.RedisStoreSettings;
import dev.llmratelimit.store.redis.RedissonClientFactory;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.annotations.Mode;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Part 8: the client-side limiter. Its acquisition cost in memory beside two Bucket4j buckets
 * (JMH, 1 and 2 threads), its Redis acquisition beside a no-op script, and its accuracy: what a provider
 * that enforces its own limits saw, per second, from four instances at three times its rate, with the
 * limiters set 25 % above the provider's real limits, with and without header feedback.
 */
final class OutboundCost {

    record Jmh(String benchmark, int threads, double average) {
    }

    record Accuracy(String mode, int served, int tooMany, int refusedLocally, long maxPerWindow, double allowed) {
    }

    record Result(List<Jmh> jmh, LatencySamples acquire, LatencySamples noOp, List<Accuracy> accuracy,
                  List<OutboundIntegrationCost.Row> integrations) {
    }

    static final int PROVIDER_RPM = 600;
    static final int PROVIDER_TPM = 12_000;
    private static final String CHAT = "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":20}";

    private final BenchSettings settings;
    private final String redisAddress;

    OutboundCost(BenchSettings settings, String redisAddress) {
        this.settings = settings;
        this.redisAddress = redisAddress;
    }

    Result measure() throws Exception {
        List<Jmh> jmh = new ArrayList<>();
        for (int threads : new int[] {1, 2}) {
            for (String benchmark : List.of("outboundAcquireAndSettle", "bucket4jTwoBuckets")) {
                jmh.add(run(benchmark, threads));
            }
        }
        RedisStoreSettings redis = RedisStoreSettings.parse(Map.of(RedisStoreSettings.PREFIX + "address", redisAddress,
                RedisStoreSettings.PREFIX + "timeout", "5s"));
        RedissonClient client = RedissonClientFactory.create(redis);
        LatencySamples acquire = new LatencySamples(settings.redisSamples());
        LatencySamples noOp = new LatencySamples(settings.redisSamples());
        try (RedisOutboundStore store = RedisOutboundStore.using(client, "bench:")) {
            BucketLimits limits = new BucketLimits(1_000_000_000L, 1_000_000_000_000L, 0.9, 1.0);
            BucketKey key = new BucketKey("openai", "gpt-4o");
            RScript script = client.getScript(StringCodec.INSTANCE);
            String sha = script.scriptLoad("return {0, 0}");
            List<Object> keys = List.of("bench:out:{openai:gpt-4o}", "bench:out:{openai:gpt-4o}:p:x");
            for (int i = 0; i < settings.redisWarmup() + settings.redisSamples(); i++) {
                boolean measured = i >= settings.redisWarmup();
                long start = System.nanoTime();
                store.acquire(key, limits, "p" + i, new Tokens(100, 200), 0, 60_000).join();
                long mid = System.nanoTime();
                script.evalSha(keys.get(0).toString(), RScript.Mode.READ_WRITE, sha, RScript.ReturnType.MULTI, keys, "1", "2");
                long end = System.nanoTime();
                if (measured) {
                    acquire.add(mid - start);
                    noOp.add(end - mid);
                }
            }
        } finally {
            client.shutdown();
        }
        List<Accuracy> accuracy = List.of(accuracy(redis, true), accuracy(redis, false));
        return new Result(jmh, acquire, noOp, accuracy, new OutboundIntegrationCost(settings).measure());
    }

    private Jmh run(String benchmark, int threads) throws RunnerException {
        Options options = new OptionsBuilder()
                .include(OutboundAcquireBenchmark.class.getName() + "\\." + benchmark + "$")
                .mode(Mode.AverageTime).timeUnit(TimeUnit.NANOSECONDS)
                .forks(settings.jmhForks()).threads(threads)
                .warmupIterations(settings.jmhWarmupSeconds()).warmupTime(TimeValue.seconds(1))
                .measurementIterations(settings.jmhMeasureSeconds()).measurementTime(TimeValue.seconds(1))
                .jvmArgs("-Xmx256m").shouldFailOnError(true).build();
        RunResult result = new Runner(options).run().iterator().next();
        return new Jmh(benchmark, threads, result.getPrimaryResult().getScore());
    }

    /**
     * Four instances on one Redis, limiters set to 750 RPM / 15 000 TPM against a provider of 600 / 12 000
     * holding one second of each (burst 1/60 on both sides, so it runs in seconds), at three times the
     * provider's rate. Without feedback the store ignores corrections.
     */
    private Accuracy accuracy(RedisStoreSettings redis, boolean feedback) throws Exception {
        long seconds = settings.mode().equals("full") ? 20 : 4;
        try (FakeProvider provider = new FakeProvider(PROVIDER_RPM, PROVIDER_TPM, 1.0 / 60, 1_000_000_000L, System::nanoTime)) {
            List<OutboundLimiter> limiters = new ArrayList<>();
            List<RedissonClient> clients = new ArrayList<>();
            String prefix = "acc-" + feedback + ":";
            for (int i = 0; i < 4; i++) {
                RedissonClient client = RedissonClientFactory.create(redis);
                clients.add(client);
                OutboundStore store = RedisOutboundStore.using(client, prefix);
                limiters.add(OutboundLimiter.builder()
                        .store(ProviderSettings.StoreKind.REDIS, feedback ? store : withoutFeedback(store))
                        .provider("openai", p -> p.baseUrl(provider.baseUrl()).rpm(PROVIDER_RPM * 5 / 4)
                                .tpm(PROVIDER_TPM * 5 / 4).burst(1.0 / 60).maxWait(Duration.ofMillis(300))
                                .store(ProviderSettings.StoreKind.REDIS))
                        .build());
            }
            AtomicInteger refused = new AtomicInteger();
            AtomicInteger failed = new AtomicInteger();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            long periodNanos = 4L * 3 * 1_000_000_000L / (3 * PROVIDER_RPM / 60);
            ExecutorService threads = Executors.newFixedThreadPool(12);
            List<Future<?>> running = new ArrayList<>();
            for (OutboundLimiter limiter : limiters) {
                HttpClient http = LimitedHttpClient.wrap(HttpClient.newHttpClient(), limiter);
                for (int t = 0; t < 3; t++) {
                    running.add(threads.submit(() -> {
                        long next = System.nanoTime();
                        while (next < end) {
                            try {
                                http.send(HttpRequest.newBuilder(URI.create(provider.baseUrl() + "/chat/completions"))
                                        .POST(HttpRequest.BodyPublishers.ofString(CHAT)).build(), HttpResponse.BodyHandlers.ofString());
                            } catch (OutboundLimitException e) {
                                refused.incrementAndGet();
                            } catch (java.io.IOException e) {
                                failed.incrementAndGet();
                            }
                            next += periodNanos;
                            long pause = next - System.nanoTime();
                            if (pause > 0) {
                                TimeUnit.NANOSECONDS.sleep(pause);
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> task : running) {
                task.get();
            }
            threads.shutdown();
            limiters.forEach(OutboundLimiter::close);
            clients.forEach(RedissonClient::shutdown);
            long max = provider.perWindow().stream().mapToLong(w -> w[0]).max().orElse(0);
            // a bucket of one second's 10 requests refilled at 10 a second admits at most 20 in one second
            double allowed = 2.0 * PROVIDER_RPM / 60;
            if (failed.get() > 0) {
                System.err.println("outbound accuracy: " + failed.get() + " calls failed on the connection");
            }
            return new Accuracy(feedback ? "with header feedback" : "without header feedback", provider.served(),
                    provider.tooManyRequests(), refused.get(), max, allowed);
        }
    }

    /** The store with corrections switched off: the limiter as if it read no provider headers. */
    private static OutboundStore withoutFeedback(OutboundStore store) {
        return new ForwardingOutboundStore(store) {
            @Override
            public CompletableFuture<Void> correct(BucketKey key, BucketLimits limits, Correction correction) {
                return CompletableFuture.completedFuture(null);
            }
        };
    }

    static void write(Report report, Result result) {
        report.heading("8. Client-side limiter (outbound)")
                .paragraph("Acquisition in memory: `OutboundLimiter.acquire(\"openai\", \"gpt-4o\", new Tokens(100, 200)).settle(new Tokens(100, 150))` "
                        + "(request and token buckets taken, then settled to the real usage) beside two local Bucket4j buckets "
                        + "(`requests.tryConsume(1) && tokens.tryConsume(300)`), JMH average time; at 2 threads both hit "
                        + "the same model.");
        List<List<String>> rows = new ArrayList<>();
        for (Jmh jmh : result.jmh()) {
            Jmh bucket4j = result.jmh().stream().filter(j -> j.benchmark().equals("bucket4jTwoBuckets")
                    && j.threads() == jmh.threads()).findFirst().orElseThrow();
            rows.add(List.of(jmh.benchmark().equals("bucket4jTwoBuckets") ? "Bucket4j, 2 local buckets"
                            : "outbound acquire + settle (memory)", Integer.toString(jmh.threads()),
                    Report.fixed(jmh.average(), 0), Report.ratio(jmh.average() / bucket4j.average())));
        }
        report.table(List.of("call", "threads", "average ns", "vs Bucket4j"), rows);
        report.paragraph("Redis, one client thread: `acquire.lua` (one EVALSHA on the server clock) beside a no-op "
                + "script through the same Redisson codec and EVALSHA path.");
        report.table(List.of("call", "p50 us", "p99 us", "p50 vs no-op"), List.of(
                List.of("outbound acquire (Redis)", Report.fixed(result.acquire().percentileMicros(50), 0),
                        Report.fixed(result.acquire().percentileMicros(99), 0),
                        Report.ratio(result.acquire().percentileMicros(50) / result.noOp().percentileMicros(50))),
                List.of("no-op script", Report.fixed(result.noOp().percentileMicros(50), 0),
                        Report.fixed(result.noOp().percentileMicros(99), 0), "1.0x")));
        report.paragraph("Accuracy: a local provider of " + PROVIDER_RPM + " RPM / " + PROVIDER_TPM + " TPM holding one "
                + "second of each (so the run takes seconds), enforcing them itself with 429s; four instances on one "
                + "Redis, each limiter set 25 % above the provider's real limits (a stale configuration, or another "
                + "client on the same key), offered three times the provider's rate. `max per second` is the most "
                + "requests the provider served in one second; its buckets allow at most the `allowed` figure.");
        List<List<String>> accuracy = new ArrayList<>();
        for (Accuracy a : result.accuracy()) {
            accuracy.add(List.of(a.mode(), Integer.toString(a.served()), Integer.toString(a.tooMany()),
                    Integer.toString(a.refusedLocally()), Long.toString(a.maxPerWindow()), Report.fixed(a.allowed(), 0)));
        }
        report.table(List.of("limiter", "served", "429 answered", "refused before sending", "max per second", "allowed"),
                accuracy);
        OutboundIntegrationCost.write(report, result.integrations());
    }
}
