package dev.llmratelimit.bench;

import dev.llmratelimit.demo.BenchServer;
import dev.llmratelimit.testsupport.Policies;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Part 3: the demo's endpoint without the filter, with it on the memory store and with it on the
 * Redis store, all in this JVM on 127.0.0.1, driven by {@link LoadGenerator}.
 */
final class HttpOverhead {

    static final String BASELINE = "no filter";
    static final String MEMORY = "filter, memory store";
    static final String REDIS = "filter, Redis store";
    static final String JSON = "JSON";
    static final String STREAM = "streaming (SSE)";

    private static final Map<String, String> BODIES = Map.of(
            JSON, "{\"model\":\"gpt-4o\",\"max_tokens\":20,\"messages\":[{\"role\":\"user\",\"content\":\"Hello there\"}]}",
            STREAM, "{\"model\":\"gpt-4o\",\"max_tokens\":20,\"stream\":true,\"stream_options\":{\"include_usage\":true},"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"Hello there\"}]}");

    record Result(String server, String body, List<Double> requestsPerSecond, LatencySamples latencies, int non2xx) {
        double medianRequestsPerSecond() {
            List<Double> sorted = requestsPerSecond.stream().sorted().toList();
            return sorted.get(sorted.size() / 2);
        }
    }

    private final BenchSettings settings;
    private final String redisAddress;

    HttpOverhead(BenchSettings settings, String redisAddress) {
        this.settings = settings;
        this.redisAddress = redisAddress;
    }

    static Map<String, String> filterProperties(String store, String redisAddress) {
        return Policies.properties("models.gpt-4o.rpm=" + DecisionBenchmark.RPM, "models.gpt-4o.tpm=" + DecisionBenchmark.TPM,
                "reservation.prod=0.5", "reservation.dev=0.2", "principals.alice.priority=prod",
                "store=" + store, "redis.address=" + redisAddress, "redis.key-prefix=bench-http:");
    }

    List<Result> measure() throws Exception {
        Map<String, String> keys = Map.of("sk-alice", "alice");
        Map<String, BenchServer> servers = new LinkedHashMap<>();
        try {
            servers.put(BASELINE, BenchServer.start(null, keys, 10, 20, Duration.ZERO));
            servers.put(MEMORY, BenchServer.start(filterProperties("memory", redisAddress), keys, 10, 20, Duration.ZERO));
            servers.put(REDIS, BenchServer.start(filterProperties("redis", redisAddress), keys, 10, 20, Duration.ZERO));
            return measure(servers);
        } finally {
            for (BenchServer server : servers.values()) {
                server.close();
            }
        }
    }

    private List<Result> measure(Map<String, BenchServer> servers) throws InterruptedException {
        LoadGenerator load = new LoadGenerator();
        for (String body : List.of(JSON, STREAM)) {
            for (Map.Entry<String, BenchServer> server : servers.entrySet()) {
                load.run(server.getValue().port(), "sk-alice", BODIES.get(body), settings.httpWarmup(),
                        BenchSettings.HTTP_CONNECTIONS);
            }
        }
        // Rounds interleave the servers, so drift of the machine touches all of them alike.
        Map<List<String>, List<LoadGenerator.Run>> runs = new LinkedHashMap<>();
        for (int round = 0; round < settings.rounds(); round++) {
            for (String body : List.of(JSON, STREAM)) {
                for (Map.Entry<String, BenchServer> server : servers.entrySet()) {
                    runs.computeIfAbsent(List.of(server.getKey(), body), k -> new ArrayList<>())
                            .add(load.run(server.getValue().port(), "sk-alice", BODIES.get(body),
                                    settings.httpRequests(), BenchSettings.HTTP_CONNECTIONS));
                }
            }
        }
        List<Result> results = new ArrayList<>();
        runs.forEach((key, list) -> {
            LatencySamples latencies = new LatencySamples(settings.httpRequests() * list.size());
            list.forEach(run -> latencies.addAll(run.latencies()));
            results.add(new Result(key.get(0), key.get(1),
                    list.stream().map(LoadGenerator.Run::requestsPerSecond).toList(), latencies,
                    list.stream().mapToInt(LoadGenerator.Run::non2xx).sum()));
        });
        return results;
    }

    static void write(Report report, List<Result> results) {
        report.heading("3. HTTP overhead")
                .paragraph("The demo's endpoint (bearer-key authentication filter and the mock chat servlet, no simulated "
                        + "latency) on an embedded Tomcat on 127.0.0.1, with no rate-limit filter, with the filter on the "
                        + "memory store, and with the filter on the Redis store (the same one redis-server). The load "
                        + "generator is `java.net.http.HttpClient` in the same JVM: " + BenchSettings.HTTP_CONNECTIONS
                        + " connections in a closed loop, a fixed number of requests per run, each response read whole; the "
                        + "servers take turns run by run and requests/s is the median over the rounds. "
                        + "Streaming asks for `stream_options.include_usage`, five content chunks and a usage chunk. "
                        + "Client, server, Redisson and redis-server share the machine's cores. With Redis the filter makes "
                        + "two synchronous round trips per request on the request thread (decide before the call, record "
                        + "after it); a Redis call slower than `redis.timeout` (250 ms) is admitted fail-open and shows "
                        + "as a 2xx with a warning in the log.");
        List<List<String>> rows = new ArrayList<>();
        for (Result result : results) {
            Result baseline = find(results, BASELINE, result.body());
            rows.add(List.of(result.body(), result.server(), Report.fixed(result.medianRequestsPerSecond(), 0),
                    Report.ratio(result.medianRequestsPerSecond() / baseline.medianRequestsPerSecond()),
                    Report.fixed(result.latencies().percentileMicros(50) / 1000, 2),
                    Report.fixed(result.latencies().percentileMicros(99) / 1000, 2),
                    Integer.toString(result.non2xx())));
        }
        report.table(List.of("response", "server", "requests/s", "vs no filter", "p50 ms", "p99 ms", "non-2xx"), rows);
        for (String body : List.of(JSON, STREAM)) {
            double baseline = find(results, BASELINE, body).medianRequestsPerSecond();
            double memoryCost = 1 - find(results, MEMORY, body).medianRequestsPerSecond() / baseline;
            double redisCost = 1 - find(results, REDIS, body).medianRequestsPerSecond() / baseline;
            report.target(body + ": in-memory filter costs <= 10 % of baseline throughput", memoryCost <= 0.10,
                            Report.percent(memoryCost))
                    .target(body + ": Redis filter costs <= 25 % of baseline throughput", redisCost <= 0.25,
                            Report.percent(redisCost));
        }
        report.endTargets();
    }

    static Result find(List<Result> results, String server, String body) {
        return results.stream().filter(r -> r.server().equals(server) && r.body().equals(body)).findFirst().orElseThrow();
    }
}
