package dev.llmratelimit.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A bounded closed-loop load generator on loopback: a fixed number of POSTs shared by a few
 * connections, each sending its next request when the previous answer has been read whole.
 */
final class LoadGenerator {

    record Run(double requestsPerSecond, LatencySamples latencies, int non2xx) {
    }

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    Run run(int port, String apiKey, String body, int requests, int connections) throws InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + apiKey)
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                .build();
        AtomicInteger remaining = new AtomicInteger(requests);
        AtomicInteger non2xx = new AtomicInteger();
        List<LatencySamples> perConnection = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            LatencySamples samples = new LatencySamples(requests / connections + 1);
            perConnection.add(samples);
            threads.add(new Thread(() -> {
                while (remaining.getAndDecrement() > 0) {
                    long start = System.nanoTime();
                    if (send(request) / 100 != 2) {
                        non2xx.incrementAndGet();
                    }
                    samples.add(System.nanoTime() - start);
                }
            }));
        }
        long begin = System.nanoTime();
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join();
        }
        double seconds = (System.nanoTime() - begin) / 1e9;
        LatencySamples all = new LatencySamples(requests);
        perConnection.forEach(all::addAll);
        return new Run(requests / seconds, all, non2xx.get());
    }

    private int send(HttpRequest request) {
        try {
            HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
            return response.statusCode();
        } catch (IOException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }
}
