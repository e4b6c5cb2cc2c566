package dev.llmratelimit.bench;

import dev.llmratelimit.demo.BenchServer;
import dev.llmratelimit.testsupport.Policies;
import dev.llmratelimit.testsupport.RedisServer;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Part 4: how many requests and tokens four instances sharing one Redis admit within one window
 * when 64 requests arrive together (or spread over a little more than a second), against the
 * configured RPM and TPM. Every response has a known size, so admitted tokens follow from the
 * count of admitted requests.
 */
final class BurstAccuracy {

    /** The {@code token-admission} modes compared; each one is one more column of the table. */
    static final List<String> MODES = List.of("recorded", "reserve");

    static final int INSTANCES = 4;
    static final int REQUESTS = 64;
    static final long TPM = 1_000;
    static final long RPM = 20;
    static final long PROMPT_TOKENS = 10;
    static final long COMPLETION_TOKENS = 90;
    static final long TOKENS_PER_REQUEST = PROMPT_TOKENS + COMPLETION_TOKENS;
    static final Duration RESPONSE_TIME = Duration.ofMillis(50);
    static final Duration SPREAD_INTERVAL = Duration.ofMillis(20);

    enum Arrival {
        BURST("64 at once"),
        SPREAD("one every " + SPREAD_INTERVAL.toMillis() + " ms");

        final String label;

        Arrival(String label) {
            this.label = label;
        }
    }

    /** Requests admitted in each trial of one mode, model and arrival pattern. */
    record Result(String mode, String model, Arrival arrival, List<Integer> admitted) {
        int median() {
            return admitted.stream().sorted().toList().get(admitted.size() / 2);
        }

        int worst() {
            return admitted.stream().mapToInt(Integer::intValue).max().orElseThrow();
        }
    }

    private final BenchSettings settings;
    private final RedisServer redis;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    BurstAccuracy(BenchSettings settings, RedisServer redis) {
        this.settings = settings;
        this.redis = redis;
    }

    List<Result> measure() throws Exception {
        List<Result> results = new ArrayList<>();
        for (String mode : MODES) {
            Map<String, String> properties = Policies.properties("models.acc-tpm.tpm=" + TPM, "models.acc-rpm.rpm=" + RPM,
                    "token-admission=" + mode, "window=60s", "store=redis", "redis.address=" + redis.address(),
                    "redis.key-prefix=bench-acc:", "redis.timeout=2s");
            List<BenchServer> servers = new ArrayList<>();
            try {
                for (int i = 0; i < INSTANCES; i++) {
                    servers.add(BenchServer.start(properties, Map.of(), PROMPT_TOKENS, COMPLETION_TOKENS, RESPONSE_TIME));
                }
                for (String model : List.of("acc-tpm", "acc-rpm")) {
                    for (Arrival arrival : Arrival.values()) {
                        List<Integer> admitted = new ArrayList<>();
                        for (int trial = 0; trial < settings.accuracyTrials(); trial++) {
                            redis.call("FLUSHALL");
                            admitted.add(trial(servers, model, arrival));
                        }
                        results.add(new Result(mode, model, arrival, admitted));
                    }
                }
            } finally {
                for (BenchServer server : servers) {
                    server.close();
                }
            }
        }
        return results;
    }

    /** Sends {@link #REQUESTS} requests round-robin over the instances; returns how many got a 200. */
    private int trial(List<BenchServer> servers, String model, Arrival arrival) throws InterruptedException {
        String body = "{\"model\":\"" + model + "\",\"max_tokens\":" + COMPLETION_TOKENS
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
        AtomicInteger admitted = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        CountDownLatch ready = new CountDownLatch(REQUESTS);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < REQUESTS; i++) {
            int port = servers.get(i % servers.size()).port();
            long delayMillis = arrival == Arrival.BURST ? 0 : i * SPREAD_INTERVAL.toMillis();
            Thread thread = new Thread(() -> {
                ready.countDown();
                try {
                    go.await();
                    Thread.sleep(delayMillis);
                    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                            .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(body)).build();
                    int status = client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
                    if (status == 200) {
                        admitted.incrementAndGet();
                    } else if (status != 429) {
                        failed.incrementAndGet();
                    }
                } catch (IOException e) {
                    failed.incrementAndGet();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            thread.start();
            threads.add(thread);
        }
        ready.await(10, TimeUnit.SECONDS);
        go.countDown();
        for (Thread thread : threads) {
            thread.join();
        }
        if (failed.get() > 0) {
            throw new IllegalStateException(failed.get() + " requests neither admitted nor refused with 429");
        }
        return admitted.get();
    }

    static void write(Report report, List<Result> results) {
        report.heading("4. Accuracy under bursts")
                .paragraph(INSTANCES + " instances (embedded Tomcats with the filter, each with its own Redisson client) "
                        + "share one redis-server; " + REQUESTS + " requests go round-robin to them, either all released "
                        + "together or one every " + SPREAD_INTERVAL.toMillis() + " ms. The mock endpoint answers after "
                        + RESPONSE_TIME.toMillis() + " ms with usage " + PROMPT_TOKENS + " + " + COMPLETION_TOKENS + " = "
                        + TOKENS_PER_REQUEST + " tokens, so admitted tokens = admitted requests x " + TOKENS_PER_REQUEST
                        + ". Model `acc-tpm` has only `tpm=" + TPM + "`, model `acc-rpm` only `rpm=" + RPM + "`; window 60 s "
                        + "(each trial starts on an empty Redis, so everything happens in one window). Figures are the "
                        + "median and the worst over the trials.");
        List<List<String>> tokenRows = new ArrayList<>();
        List<List<String>> requestRows = new ArrayList<>();
        boolean rpmExact = true;
        for (Result result : results) {
            int median = result.median();
            int worst = result.worst();
            if (result.model().equals("acc-tpm")) {
                tokenRows.add(List.of(result.mode(), result.arrival().label, Integer.toString(median),
                        Long.toString(median * TOKENS_PER_REQUEST), Long.toString(TPM),
                        Report.percent(overshoot(median * TOKENS_PER_REQUEST, TPM)),
                        Report.percent(overshoot(worst * TOKENS_PER_REQUEST, TPM))));
            } else {
                rpmExact &= worst <= RPM;
                requestRows.add(List.of(result.mode(), result.arrival().label, Integer.toString(median),
                        Integer.toString(worst), Long.toString(RPM), Long.toString(Math.max(0, worst - RPM))));
            }
        }
        report.table(List.of("token-admission", "arrival", "requests admitted (median)", "tokens admitted (median)",
                "TPM", "TPM overshoot (median)", "TPM overshoot (worst)"), tokenRows);
        report.table(List.of("token-admission", "arrival", "requests admitted (median)", "requests admitted (worst)",
                "RPM", "over RPM (worst)"), requestRows);
        report.target("RPM exact: 0 requests over RPM in every trial", rpmExact,
                        rpmExact ? "0 over" : "over in some trial")
                .endTargets()
                .paragraph("TPM overshoot is reported, not targeted. In `recorded` mode a request's tokens count only "
                        + "once its response has been seen, so every request that arrives while the window still has "
                        + "tokens left is admitted: the overshoot grows with the number of requests in flight. In "
                        + "`reserve` mode each decision adds an estimate (the prompt counted with the tokenizer plus "
                        + "`max_tokens`) in the same atomic step and the difference to the actual usage is applied "
                        + "after the call, so the overshoot is bounded by estimation error, not by concurrency.");
    }

    /** The median TPM overshoot of the token-limited model in one mode and arrival pattern, as a fraction of TPM. */
    static double medianTokenOvershoot(List<Result> results, String mode, Arrival arrival) {
        Result result = results.stream()
                .filter(r -> r.mode().equals(mode) && r.model().equals("acc-tpm") && r.arrival() == arrival)
                .findFirst().orElseThrow();
        return overshoot(result.median() * TOKENS_PER_REQUEST, TPM);
    }

    private static double overshoot(long tokens, long tpm) {
        return Math.max(0, tokens - tpm) / (double) tpm;
    }
}
