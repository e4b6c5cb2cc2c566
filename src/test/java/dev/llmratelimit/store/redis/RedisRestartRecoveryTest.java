package dev.llmratelimit.store.redis;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.testsupport.Policies;
import dev.llmratelimit.testsupport.RedisServer;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;

import static dev.llmratelimit.testsupport.Admits.admit;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real redis-server killed (SIGKILL) under steady traffic and started again, five times, with the
 * store wired as {@code store=redis} wires it (default circuit: 3 failures, 1 s back-off, probes every
 * 250 ms): limiting resumes within a second of Redis answering, every time, and does not switch off again.
 */
class RedisRestartRecoveryTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final long DEAD_MILLIS = 1_000;
    private static final long REQUEST_EVERY_MILLIS = 20;

    @Test
    void limitingResumesWithinASecondOfEachRestartWithoutFlapping() throws Exception {
        RedisServer server = REDIS.server();
        List<Long> recoveries = new ArrayList<>();
        try (RateLimitRuntime runtime = RateLimitRuntime.create(Policies.properties("models.m.rpm=100000",
                "store=redis", "redis.address=" + server.address(), "on-store-failure=fail-closed"), null)) {
            admit(runtime.limiter(), "m", null).complete(new Usage(1, 1, 0));
            for (int run = 0; run < 5; run++) {
                server.crash();
                long deadUntil = System.nanoTime() + DEAD_MILLIS * 1_000_000;
                while (System.nanoTime() < deadUntil) {
                    assertThat(admit(runtime.limiter(), "m", null).outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_CLOSED);
                    Thread.sleep(REQUEST_EVERY_MILLIS);
                }
                server.start();
                long back = System.nanoTime();
                Admission admission;
                while ((admission = admit(runtime.limiter(), "m", null)).outcome() != Admission.Outcome.ADMITTED
                        && System.nanoTime() - back < 10_000_000_000L) {
                    Thread.sleep(REQUEST_EVERY_MILLIS);
                }
                recoveries.add((System.nanoTime() - back) / 1_000_000);
                admission.complete(new Usage(1, 1, 0));
                for (int i = 0; i < 50; i++) {                       // a second of traffic: no relapse
                    Admission next = admit(runtime.limiter(), "m", null);
                    assertThat(next.outcome()).as("run %d, request %d after recovery", run, i)
                            .isEqualTo(Admission.Outcome.ADMITTED);
                    next.complete(new Usage(1, 1, 0));
                    Thread.sleep(REQUEST_EVERY_MILLIS);
                }
            }
        }
        assertThat(recoveries).as("ms from Redis answering to the first counted decision").allMatch(ms -> ms < 1_000);
    }
}
