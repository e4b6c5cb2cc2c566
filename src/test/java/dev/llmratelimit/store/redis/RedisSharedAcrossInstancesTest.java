package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.testsupport.StartTogether;
import dev.llmratelimit.testsupport.RedisTestSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.LongStream;

import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.llmratelimit.testsupport.Admits.admit;

/** Four application instances (each its own Redisson client) with 16 threads each share one model. */
class RedisSharedAcrossInstancesTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final int INSTANCES = 4;
    private static final int THREADS = 16;
    private static final int ATTEMPTS = 12;

    private record Decision(String priority, Verdict verdict) {
    }

    @Test
    void everyInstanceSeesOneCounterAndSwitchesToStrictAtTheSameRequest() throws Exception {
        RateLimitPolicy policy = policy("models.m.rpm=400", "reservation.prod=0.9", "reservation.dev=0.1",
                "saturation-threshold=0.5");
        List<RedisAdmissionStore> stores = new ArrayList<>();
        StartTogether together = new StartTogether();
        ConcurrentLinkedQueue<Decision> decisions = new ConcurrentLinkedQueue<>();
        try {
            for (int i = 0; i < INSTANCES; i++) {
                RedisAdmissionStore store = RedisAdmissionStore.create(RedisTestSettings.forAddress(REDIS.server().address()));
                stores.add(store);
                RateLimiter instance = new RateLimiter(policy, store);
                for (int t = 0; t < THREADS; t++) {
                    String priority = t % 2 == 0 ? "prod" : "dev";
                    together.add(() -> {
                        for (int a = 0; a < ATTEMPTS; a++) {
                            decisions.add(new Decision(priority, admit(instance, "m", priority).verdict()));
                        }
                        return null;
                    });
                }
            }
            together.run(Duration.ofSeconds(60));
        } finally {
            stores.forEach(RedisAdmissionStore::close);
        }

        assertThat(decisions).hasSize(INSTANCES * THREADS * ATTEMPTS);
        List<Decision> admitted = decisions.stream().filter(d -> d.verdict().admitted()).toList();
        assertThat(admitted).hasSize(400);
        // The k-th admitted request saw k-1 before it, whichever instance it came through.
        assertThat(admitted.stream().map(d -> d.verdict().saturation()).toList())
                .containsExactlyInAnyOrderElementsOf(LongStream.range(0, 400).mapToObj(k -> k / 400.0).toList());
        // Generous up to saturation 0.5: exactly the first 200 admissions, and no refusal before them.
        List<Decision> generous = decisions.stream().filter(d -> !d.verdict().strict()).toList();
        assertThat(generous).hasSize(200).allMatch(d -> d.verdict().admitted() && d.verdict().saturation() < 0.5);
        assertThat(decisions).filteredOn(d -> d.verdict().strict()).allMatch(d -> d.verdict().saturation() >= 0.5);

        // In strict mode dev is held to its 40 (10 %) unless it had borrowed more while generous.
        long devGenerous = generous.stream().filter(d -> d.priority().equals("dev")).count();
        long devAdmitted = admitted.stream().filter(d -> d.priority().equals("dev")).count();
        assertThat(devAdmitted).isEqualTo(Math.max(40, devGenerous));
        assertThat(REDIS.server().call("HMGET", stores.get(0).keyOf("m"), "r", "r:prod", "r:dev"))
                .isEqualTo(List.of("400", Long.toString(400 - devAdmitted), Long.toString(devAdmitted)));
    }
}
