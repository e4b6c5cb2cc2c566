package dev.llmratelimit.demo;

import dev.llmratelimit.config.ConfigurationStatus;
import dev.llmratelimit.testsupport.Http;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/** Limits change in a running demo without a restart; the live window's counters are kept. */
class ReloadThroughDemoTest {

    private static final String CHAT = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";

    private static String quickStart(String tpm) throws Exception {
        return Files.readString(Path.of("config", "litellm-quickstart.yaml")).replace("tpm: 60", "tpm: " + tpm);
    }

    /**
     * 60 TPM: two 30-token calls, the third refused. The file now says 120: the 60 tokens already
     * used still count, so two more calls pass (90, then 120 of 120) and the next is refused.
     */
    @Test
    void aRaisedLimitAppliesToTheLiveWindow(@TempDir Path dir) throws Exception {
        Path config = Files.writeString(dir.resolve("config.yaml"), quickStart("60"));
        try (DemoFixture demo = new DemoFixture(config)) {
            assertThat(demo.http().chat(null, CHAT).statusCode()).isEqualTo(200);
            assertThat(demo.http().chat(null, CHAT).statusCode()).isEqualTo(200);
            assertThat(demo.http().chat(null, CHAT).statusCode()).isEqualTo(429);
            ConfigurationStatus before = demo.server().runtime().configurationStatus();

            Files.writeString(config, quickStart("120"));
            assertThat(demo.server().runtime().reload()).isTrue();

            HttpResponse<String> fourth = demo.http().chat(null, CHAT);
            assertThat(fourth.statusCode()).isEqualTo(200);
            assertThat(Http.header(fourth, "x-ratelimit-limit-tokens")).isEqualTo("120");
            assertThat(Http.header(fourth, "x-ratelimit-remaining-tokens")).isEqualTo("60");
            assertThat(demo.http().chat(null, CHAT).statusCode()).isEqualTo(200);
            HttpResponse<String> refused = demo.http().chat(null, CHAT);
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.body()).contains("Model capacity reached for gpt-4o-mini. Priority: default, "
                    + "Rate limit type: tokens, Model TPM: 120, Model RPM: not configured, Remaining: 0");
            ConfigurationStatus after = demo.server().runtime().configurationStatus();
            assertThat(after.origin()).isEqualTo("the demo's configuration over " + config);
            assertThat(after.loadedAt()).isAfterOrEqualTo(before.loadedAt());
            assertThat(after.lastError()).isNull();
        }
    }

    /**
     * The demo's own {@code --config} properties file, with {@code reload-interval=1s} in it: 2 RPM
     * refuses the third call; once the file says 4 the running demo applies it within the interval
     * (waited for through the configuration status, not a fixed sleep) and the window's 2 calls still count.
     */
    @Test
    void theDemosOwnPropertiesFileIsReloaded(@TempDir Path dir) throws Exception {
        Path config = Files.writeString(dir.resolve("demo.properties"), """
                llm.ratelimit.reload-interval=1s
                llm.ratelimit.window=1h
                llm.ratelimit.models.gpt-4o-mini.rpm=2
                """);
        try (DemoFixture demo = new DemoFixture(config)) {
            assertThat(demo.http().chat(null, CHAT).statusCode()).isEqualTo(200);
            assertThat(demo.http().chat(null, CHAT).statusCode()).isEqualTo(200);
            assertThat(demo.http().chat(null, CHAT).statusCode()).isEqualTo(429);
            java.time.Instant loaded = demo.server().runtime().configurationStatus().loadedAt();

            Files.writeString(config, Files.readString(config).replace("rpm=2", "rpm=4"));
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (demo.server().runtime().configurationStatus().loadedAt().equals(loaded) && System.nanoTime() < deadline) {
                Thread.onSpinWait();
                Thread.sleep(50);
            }

            HttpResponse<String> third = demo.http().chat(null, CHAT);
            assertThat(third.statusCode()).isEqualTo(200);
            assertThat(Http.header(third, "x-ratelimit-limit-requests")).isEqualTo("4");
            assertThat(Http.header(third, "x-ratelimit-remaining-requests")).isEqualTo("1");
            assertThat(demo.server().runtime().configurationStatus().origin()).isEqualTo("the demo's configuration over " + config);
        }
    }

    /** A file that does not validate is refused with its message; the running 60 TPM stays. */
    @Test
    void anInvalidReloadKeepsTheRunningPolicy(@TempDir Path dir) throws Exception {
        Path config = Files.writeString(dir.resolve("config.yaml"), quickStart("60"));
        try (DemoFixture demo = new DemoFixture(config)) {
            assertThat(demo.http().chat(null, CHAT).statusCode()).isEqualTo(200);
            Files.writeString(config, quickStart("sixty"));

            assertThat(demo.server().runtime().reload()).isFalse();

            assertThat(demo.server().runtime().configurationStatus().lastError()).isEqualTo(
                    "Invalid configuration model_list[0].litellm_params.tpm: expected a whole number of at least 1, found a string");
            assertThat(demo.http().chat(null, CHAT).statusCode()).isEqualTo(200);
            HttpResponse<String> third = demo.http().chat(null, CHAT);
            assertThat(third.statusCode()).isEqualTo(429);
            assertThat(third.body()).contains("Model TPM: 60, Model RPM: not configured, Remaining: 0");

            Files.writeString(config, quickStart("90"));
            assertThat(demo.server().runtime().reload()).isTrue();
            assertThat(demo.server().runtime().configurationStatus().lastError()).isNull();
            assertThat(demo.http().chat(null, CHAT).statusCode()).isEqualTo(200);
        }
    }

    /**
     * Eight clients hammer a 40 RPM model while the file is rewritten and reloaded again and again
     * (the limit stays 40, the threshold moves): exactly 40 are admitted, none lost, none twice.
     */
    @Test
    void reloadsDuringTrafficNeitherResetNorLoseCounters(@TempDir Path dir) throws Exception {
        String rpm40 = """
                model_list:
                  - model_name: gpt-4o-mini
                    litellm_params: {model: openai/gpt-4o-mini, rpm: 40}
                litellm_settings:
                  priority_reservation_settings: {saturation_threshold: THRESHOLD}
                """;
        Path config = Files.writeString(dir.resolve("config.yaml"), rpm40.replace("THRESHOLD", "0.5"));
        try (DemoFixture demo = new DemoFixture(config)) {
            AtomicBoolean running = new AtomicBoolean(true);
            ExecutorService clients = Executors.newFixedThreadPool(9);
            Future<Integer> reloads = clients.submit(() -> {
                int applied = 0;
                for (int i = 0; running.get(); i++) {
                    Files.writeString(config, rpm40.replace("THRESHOLD", i % 2 == 0 ? "0.6" : "0.5"));
                    applied += demo.server().runtime().reload() ? 1 : 0;
                }
                return applied;
            });
            List<Future<Integer>> admitted = new ArrayList<>();
            for (int client = 0; client < 8; client++) {
                admitted.add(clients.submit(() -> {
                    int served = 0;
                    for (int request = 0; request < 10; request++) {
                        served += demo.http().chat(null, CHAT).statusCode() == 200 ? 1 : 0;
                    }
                    return served;
                }));
            }
            int total = 0;
            for (Future<Integer> client : admitted) {
                total += client.get();
            }
            running.set(false);
            int applied = reloads.get();
            clients.shutdown();

            assertThat(total).isEqualTo(40);
            assertThat(applied).isGreaterThan(1);
        }
    }
}
