package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.CallerCounter;
import dev.llmratelimit.engine.CallerPlan;
import dev.llmratelimit.engine.CallerScope;
import dev.llmratelimit.engine.Limit;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.store.CircuitBreakerSettings;
import dev.llmratelimit.store.CompensatingAdmissionStore;
import dev.llmratelimit.store.PendingCompensations;
import dev.llmratelimit.testsupport.RedisCluster;
import dev.llmratelimit.testsupport.RedisServer;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.redisson.Redisson;
import org.redisson.api.NameMapper;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.IntStream;

import static dev.llmratelimit.testsupport.Admits.admit;
import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Faults of single nodes of a real 6-node Redis Cluster: a cancel of an earlier hash slot that gets
 * no answer is sent again like any other compensation, and a dead master suspends nothing for
 * callers whose counters live on the other masters. The master is killed last.
 */
@Tag("cluster")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisClusterFaultTest {

    private static final Usage USAGE = new Usage(10, 10, 0);

    private static RedisCluster cluster;

    private RedissonClient client;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @AfterEach
    void closeClient() {
        cluster.nodes().stream().filter(RedisServer::isRunning).forEach(RedisServer::resume);
        if (client != null) {
            client.shutdown();
        }
    }

    /** A client with a short timeout and no retries; {@code onKey} sees every key a command names, before it is sent. */
    private RedissonClient client(Predicate<String> onKey) {
        Config config = new Config();
        config.useClusterServers()
                .setTimeout(300)
                .setRetryAttempts(0)
                .setNameMapper(new NameMapper() {
                    @Override
                    public String map(String name) {
                        onKey.test(name);
                        return name;
                    }

                    @Override
                    public String unmap(String name) {
                        return name;
                    }
                });
        cluster.nodes().subList(0, 3).forEach(node -> config.useClusterServers().addNodeAddress(node.address()));
        client = Redisson.create(config);
        return client;
    }

    private static RedisServer masterOfKey(String key) {
        return cluster.masterOf(cluster.slotOf(key));
    }

    @Test
    @Order(1)
    void aRefusalWhoseEarlierSlotDidNotAnswerItsCancelIsCancelledOnTheNewMaster() throws InterruptedException {
        String modelKey = GroupKeys.modelKey("llmrl:", "m");
        // A caller whose counters live on another master than the model's
        String caller = IntStream.range(0, 100).mapToObj(i -> "sk-" + i)
                .filter(id -> masterOfKey(callerKey(id)) != masterOfKey(modelKey)).findFirst().orElseThrow();
        int callersSlot = cluster.slotOf(callerKey(caller));
        RedisServer callersNode = cluster.masterOf(callersSlot);
        boolean[] armed = {false};
        RedissonClient redisson = client(key -> {
            if (armed[0] && key.equals(modelKey)) {          // the caller's slot was counted: its master dies now
                armed[0] = false;
                callersNode.call("WAIT", "1", "2000");       // with the count on its replica
                callersNode.crash();
            }
            return true;
        });
        PendingCompensations pending = new PendingCompensations(100);
        RateLimiter limiter = new RateLimiter(policy("models.m.rpm=1", "on-store-failure=fail-closed"),
                new CompensatingAdmissionStore(RedisAdmissionStore.using(redisson, "llmrl:", NodeCircuits.of(redisson,
                        new CircuitBreakerSettings(3, Duration.ofMillis(200), Duration.ofMillis(100)), Clock.systemUTC())),
                        pending, Clock.systemUTC()));
        CallerPlan plan = new CallerPlan(List.of(new CallerCounter(CallerScope.KEY, caller, 100, 0, 0)), 60_000, 600_000);

        admit(limiter, "m", null, null, plan).complete(USAGE);
        armed[0] = true;
        Admission refused = admit(limiter, "m", null, null, plan);   // counted on the caller's slot, refused by the model's
        assertThat(refused.outcome()).isEqualTo(Admission.Outcome.REFUSED);
        assertThat(refused.verdict().refusedBy()).isEqualTo(Limit.MODEL_REQUESTS);
        assertThat(pending.size()).isEqualTo(1);                     // its cancel got no answer: queued
        cluster.awaitHealthy(callersSlot);
        RedisServer promoted = cluster.masterOf(callersSlot);
        assertThat(promoted.call("HGET", callerKey(caller), "r")).isEqualTo("2");

        for (int i = 0; i < 150; i++) {                              // until the client knows the new master
            Admission again = admit(limiter, "m", null, null, plan);  // refused: by the model, or by the failover
            assertThat(again.permitsCall()).isFalse();
            if (again.verdict() != null && pending.size() == 0) {
                break;
            }
            Thread.sleep(100);
        }
        assertThat(pending.size()).isZero();
        assertThat(pending.count(PendingCompensations.Fate.APPLIED)).isPositive();
        assertThat(promoted.call("HGET", callerKey(caller), "r")).isEqualTo("1");      // only the served request
    }

    @Test
    @Order(2)
    void aDeadMasterSuspendsNothingForCallersWhoseCountersLiveElsewhere() {
        // Two masters that still have a replica: the one that dies fails over, so no slot stays uncovered
        List<String> models = IntStream.range(0, 30).mapToObj(i -> "model-" + i)
                .filter(m -> cluster.nodes().subList(0, 3).contains(masterOfKey(GroupKeys.modelKey("llmrl:", m)))).toList();
        String doomed = models.get(0);
        RedisServer doomedNode = masterOfKey(GroupKeys.modelKey("llmrl:", doomed));
        String healthy = models.stream().filter(m -> masterOfKey(GroupKeys.modelKey("llmrl:", m)) != doomedNode)
                .findFirst().orElseThrow();
        RedissonClient redisson = client(key -> true);
        NodeCircuits circuits = NodeCircuits.of(redisson,
                new CircuitBreakerSettings(3, Duration.ofSeconds(10), Duration.ofSeconds(10)), Clock.systemUTC());
        RateLimiter limiter = new RateLimiter(policy("models." + doomed + ".rpm=1000", "models." + healthy + ".rpm=20",
                "on-store-failure=fail-closed"), new CompensatingAdmissionStore(
                RedisAdmissionStore.using(redisson, "llmrl:", circuits), new PendingCompensations(100), Clock.systemUTC()));
        admit(limiter, doomed, null).complete(USAGE);
        admit(limiter, healthy, null).complete(USAGE);

        doomedNode.crash();
        for (int i = 0; i < 5; i++) {
            assertThat(admit(limiter, doomed, null).outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_CLOSED);
        }
        assertThat(circuits.anyOpen()).isTrue();                     // the dead master's circuit

        int admitted = 1;
        Admission admission;
        while ((admission = admit(limiter, healthy, null)).outcome() == Admission.Outcome.ADMITTED) {
            admission.complete(USAGE);
            admitted++;
        }
        assertThat(admission.outcome()).isEqualTo(Admission.Outcome.REFUSED);
        assertThat(admission.verdict().refusedBy()).isEqualTo(Limit.MODEL_REQUESTS);
        assertThat(admitted).isEqualTo(20);
    }

    private static String callerKey(String id) {
        return "llmrl:{k." + java.util.Base64.getUrlEncoder().withoutPadding()
                .encodeToString(id.getBytes(java.nio.charset.StandardCharsets.UTF_8)) + "}";
    }
}
