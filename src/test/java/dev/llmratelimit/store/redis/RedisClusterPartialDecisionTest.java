package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.CallerCounter;
import dev.llmratelimit.engine.CallerPlan;
import dev.llmratelimit.engine.CallerScope;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.store.CircuitBreakerSettings;
import dev.llmratelimit.store.CompensatingAdmissionStore;
import dev.llmratelimit.store.PendingCompensations;
import dev.llmratelimit.testsupport.RedisCluster;
import dev.llmratelimit.testsupport.RedisServer;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.stream.IntStream;

import static dev.llmratelimit.testsupport.Admits.admit;
import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A decision whose later hash slot fails after an earlier one counted (a dead master whose circuit
 * is open fails a call at once): the earlier slot's count and parallel slot are taken back, so a
 * caller on a healthy master is not left holding a slot nobody will release before its lease ends.
 */
@Tag("cluster")
class RedisClusterPartialDecisionTest {

    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Test
    void aFailClosedRefusalOnADeadMastersModelLeavesTheCallersSlotOnAHealthyMasterFree() {
        String doomedModel = "m";
        RedisServer doomed = masterOf(GroupKeys.modelKey("llmrl:", doomedModel));
        String caller = IntStream.range(0, 100).mapToObj(i -> "sk-" + i)
                .filter(id -> masterOf(callerKey(id)) != doomed).findFirst().orElseThrow();
        String healthyModel = IntStream.range(0, 100).mapToObj(i -> "h-" + i)
                .filter(m -> masterOf(GroupKeys.modelKey("llmrl:", m)) != doomed).findFirst().orElseThrow();
        Config config = new Config();
        config.useClusterServers().setTimeout(300).setRetryAttempts(0);
        cluster.nodes().subList(0, 3).forEach(node -> config.useClusterServers().addNodeAddress(node.address()));
        RedissonClient redisson = Redisson.create(config);
        try {
            NodeCircuits circuits = NodeCircuits.of(redisson,
                    new CircuitBreakerSettings(3, Duration.ofSeconds(30), Duration.ofSeconds(30)), Clock.systemUTC());
            RateLimiter limiter = new RateLimiter(policy("models." + doomedModel + ".rpm=1000",
                    "models." + healthyModel + ".rpm=1000", "on-store-failure=fail-closed"),
                    new CompensatingAdmissionStore(RedisAdmissionStore.using(redisson, "llmrl:", circuits),
                            new PendingCompensations(100), Clock.systemUTC()));
            CallerPlan oneAtATime = new CallerPlan(List.of(new CallerCounter(CallerScope.KEY, caller, 100, 0, 1)),
                    60_000, 600_000);
            admit(limiter, doomedModel, null).complete(new Usage(1, 1, 0));   // the client knows the topology

            doomed.crash();
            while (!circuits.anyOpen()) {
                assertThat(admit(limiter, doomedModel, null).outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_CLOSED);
            }
            // Counted on the caller's (healthy) master, then failed at once by the model's open circuit
            assertThat(admit(limiter, doomedModel, null, null, oneAtATime).outcome())
                    .isEqualTo(Admission.Outcome.STORE_FAILED_CLOSED);

            RedisServer callersNode = masterOf(callerKey(caller));
            assertThat(callersNode.call("HGET", callerKey(caller), "r")).isIn(null, "0");
            Admission next = admit(limiter, healthyModel, null, null, oneAtATime);
            assertThat(next.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
            next.complete(new Usage(1, 1, 0));
            assertThat(callersNode.call("HGET", callerKey(caller), "r")).isEqualTo("1");
        } finally {
            redisson.shutdown();
        }
    }

    private static RedisServer masterOf(String key) {
        return cluster.masterOf(cluster.slotOf(key));
    }

    private static String callerKey(String id) {
        return "llmrl:{k." + Base64.getUrlEncoder().withoutPadding().encodeToString(id.getBytes(StandardCharsets.UTF_8)) + "}";
    }
}
