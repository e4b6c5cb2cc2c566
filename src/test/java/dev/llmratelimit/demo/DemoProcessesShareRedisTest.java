package dev.llmratelimit.demo;

import dev.llmratelimit.testsupport.Http;
import dev.llmratelimit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

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
                "llm.ratelimit.window=10m") + "\n");                // replaces demo.properties: no reservations, no keys
        List<DemoProcess> processes = new ArrayList<>();
        try {
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                DemoProcess process = DemoProcess.start(config, "-cp", System.getProperty("java.class.path"),
                        DemoServer.class.getName());
                processes.add(process);
                ports.add(process.port());
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
            for (DemoProcess process : processes) {
                process.close();
            }
        }
    }
}
