package dev.llmratelimit.demo;

import dev.llmratelimit.testsupport.Http;
import dev.llmratelimit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** Three demo servers, each its own JVM, share one Redis: together they admit exactly the model's capacity. */
class DemoProcessesShareRedisTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final int RPM = 120;

    @Test
    void threeProcessesHammeredTogetherAdmitExactlyTheCapacity() throws Exception {
        Path config = Files.createTempFile("demo-redis", ".properties");
        Files.writeString(config, String.join("\n",
                "llm.ratelimit.store=redis",
                "llm.ratelimit.redis.address=" + REDIS.server().address(),
                "llm.ratelimit.redis.timeout=5s",                    // a loaded machine must not fail open
                "llm.ratelimit.redis.connect-timeout=5s",
                "llm.ratelimit.models.shared-model.rpm=" + RPM,
                "llm.ratelimit.window=10m",
                "llm.ratelimit.reservation.prod=",                   // an empty value removes the demo's
                "llm.ratelimit.reservation.dev=") + "\n");           // reservations: model-wide limits only
        List<Process> processes = new ArrayList<>();
        try {
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp", System.getProperty("java.class.path"), DemoServer.class.getName(),
                        "--config", config.toString(), "--port", "0")
                        .redirectErrorStream(true).start();
                processes.add(process);
                ports.add(readyPort(process));
            }
            AtomicInteger admitted = new AtomicInteger();
            AtomicInteger refused = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(24);
            List<Future<?>> futures = new ArrayList<>();
            for (int thread = 0; thread < 24; thread++) {
                Http http = new Http(ports.get(thread % 3));
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < 10; i++) {
                        int status = http.chat("sk-carol", "{\"model\":\"shared-model\",\"messages\":[]}").statusCode();
                        (status == 200 ? admitted : refused).incrementAndGet();
                    }
                }));
            }
            for (Future<?> future : futures) {
                future.get(2, TimeUnit.MINUTES);
            }
            pool.shutdown();

            assertThat(admitted.get()).isEqualTo(RPM);
            assertThat(refused.get()).isEqualTo(240 - RPM);
        } finally {
            processes.forEach(Process::destroyForcibly);
        }
    }

    /** Reads the process's output until the demo says where it listens. */
    private static int readyPort(Process process) throws Exception {
        BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String marker = "ready at http://127.0.0.1:";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String line;
        while (System.nanoTime() < deadline && (line = reader.readLine()) != null) {
            int at = line.indexOf(marker);
            if (at >= 0) {
                String rest = line.substring(at + marker.length());
                Thread drain = new Thread(() -> reader.lines().forEach(ignored -> { }));
                drain.setDaemon(true);
                drain.start();
                return Integer.parseInt(rest.substring(0, rest.indexOf('/')));
            }
        }
        throw new IllegalStateException("the demo process did not start");
    }
}
