package dev.llmratelimit.samples.springboot;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two application contexts on one real Redis (Debian's {@code redis-server}, started here): the model's
 * 60 tokens a minute are shared, so of six calls alternating between them exactly two are served.
 */
class RedisSharedTest {

    private static Process redis;
    private static int redisPort;

    @BeforeAll
    static void startRedis() throws Exception {
        redisPort = freePort();
        redis = new ProcessBuilder("redis-server", "--port", String.valueOf(redisPort), "--save", "", "--appendonly", "no")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        for (int attempt = 0; attempt < 100; attempt++) {
            try (Socket ignored = new Socket("127.0.0.1", redisPort)) {
                return;
            } catch (IOException notYet) {
                Thread.sleep(50);
            }
        }
        throw new IllegalStateException("redis-server did not start on port " + redisPort);
    }

    @AfterAll
    static void stopRedis() throws Exception {
        redis.destroy();
        redis.waitFor();
    }

    @Test
    void twoContextsAdmitExactlyTheModelsCapacity() throws Exception {
        try (ConfigurableApplicationContext one = start(); ConfigurableApplicationContext two = start()) {
            List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                ConfigurableApplicationContext app = i % 2 == 0 ? one : two;
                statuses.add(Calls.to(app.getEnvironment()).chat("alice", "gpt-4o-mini").statusCode());
            }
            assertThat(statuses).containsExactly(200, 200, 429, 429, 429, 429);
        }
    }

    private static ConfigurableApplicationContext start() {
        return new SpringApplicationBuilder(SampleApplication.class).run("--server.port=0",
                "--llm.ratelimit.store=redis", "--llm.ratelimit.redis.address=redis://127.0.0.1:" + redisPort);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
