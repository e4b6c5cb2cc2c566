package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.CallerCounter;
import dev.llmratelimit.engine.CallerPlan;
import dev.llmratelimit.engine.CallerScope;
import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.GroupKind;
import dev.llmratelimit.engine.Limit;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.store.CircuitBreakerSettings;
import dev.llmratelimit.store.CompensatingAdmissionStore;
import dev.llmratelimit.store.LocalShareAdmissionStore;
import dev.llmratelimit.store.PendingCompensations;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.RedisServer;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.llmratelimit.testsupport.Admits.admit;
import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code on-store-failure=local} through a real redis-server killed (SIGKILL) and started again:
 * three instances that announced themselves each enforce a third of every limit (requests, parallel
 * slots, the caller's and the model's) while Redis is dead, and decide on Redis again once it answers.
 */
class RedisLocalShareTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final Usage USAGE = new Usage(10, 10, 0);

    private final List<RedissonClient> clients = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        clients.forEach(RedissonClient::shutdown);
        if (!REDIS.server().isRunning()) {
            REDIS.server().start();
        }
    }

    private record Instance(RateLimiter limiter, LocalShareAdmissionStore store, InstanceRegistry registry) {
    }

    private Instance instance(RateLimitPolicy policy) {
        RedissonClient client = RedissonClientFactory.create(RedisStoreSettings.parse(Map.of(
                RedisStoreSettings.PREFIX + "address", REDIS.server().address(),
                RedisStoreSettings.PREFIX + "timeout", "300ms")));
        clients.add(client);
        NodeCircuits circuits = NodeCircuits.of(client,
                new CircuitBreakerSettings(3, Duration.ofMillis(100), Duration.ofMillis(100)), Clock.systemUTC());
        InstanceRegistry registry = InstanceRegistry.on(client, "llmrl:", Duration.ofSeconds(5));
        LocalShareAdmissionStore store = new LocalShareAdmissionStore(new CompensatingAdmissionStore(
                RedisAdmissionStore.using(client, "llmrl:", circuits), new PendingCompensations(1000), Clock.systemUTC()),
                new MemoryAdmissionStore(), registry);
        return new Instance(new RateLimiter(policy, store), store, registry);
    }

    @Test
    void eachInstanceKeepsItsShareOfEveryLimitWhileRedisIsDeadAndRedisDecidesAgainOnceBack() throws Exception {
        RateLimitPolicy policy = policy("models.m.rpm=30", "on-store-failure=local");
        CallerPlan caller = new CallerPlan(List.of(new CallerCounter(CallerScope.KEY, "sk-local", 12, 0, 3)),
                60_000, 600_000);
        List<Instance> instances = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            instances.add(instance(policy));
        }
        RedisServer server = REDIS.server();
        for (int round = 0; round < 2; round++) {
            instances.forEach(instance -> instance.registry().announce());
        }
        for (Instance instance : instances) {
            assertThat(instance.registry().getAsInt()).isEqualTo(3);
            admit(instance.limiter(), "m", null).complete(USAGE);
        }

        server.crash();
        for (Instance instance : instances) {
            Admission inFlight = admit(instance.limiter(), "m", null, null, caller);
            assertThat(inFlight.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
            Admission secondInParallel = admit(instance.limiter(), "m", null, null, caller);
            assertThat(secondInParallel.refusal().dimension()).isEqualTo(Dimension.PARALLEL_REQUESTS);   // 1 of 3
            inFlight.complete(USAGE);
            int callerServed = 1;
            Admission admission;
            while ((admission = admit(instance.limiter(), "m", null, null, caller)).outcome() == Admission.Outcome.ADMITTED) {
                admission.complete(USAGE);
                callerServed++;
            }
            assertThat(admission.refusal().group().kind()).isEqualTo(GroupKind.KEY);
            assertThat(callerServed).isEqualTo(4);                                        // 12 / 3
            int served = callerServed;
            while ((admission = admit(instance.limiter(), "m", null)).outcome() == Admission.Outcome.ADMITTED) {
                admission.complete(USAGE);
                served++;
            }
            assertThat(admission.verdict().refusedBy()).isEqualTo(Limit.MODEL_REQUESTS);
            assertThat(served).isEqualTo(10);                                             // 30 / 3
        }

        server.start();
        Instance first = instances.get(0);
        long local = first.store().localDecisions();
        Admission onRedis = null;
        for (int i = 0; i < 100 && onRedis == null; i++) {
            Admission admission = admit(first.limiter(), "m", null);
            if (first.store().localDecisions() == local) {
                onRedis = admission;
            } else {
                admission.complete(USAGE);
                local = first.store().localDecisions();
                Thread.sleep(20);
            }
        }
        assertThat(onRedis).as("a decision on Redis after the restart").isNotNull();
        assertThat(onRedis.outcome()).isEqualTo(Admission.Outcome.ADMITTED);            // the restart lost the windows
        onRedis.complete(USAGE);
        int served = 1;
        Admission admission;
        while ((admission = admit(first.limiter(), "m", null)).outcome() == Admission.Outcome.ADMITTED) {
            admission.complete(USAGE);
            served++;
        }
        assertThat(admission.verdict().refusedBy()).isEqualTo(Limit.MODEL_REQUESTS);
        assertThat(served).isEqualTo(30);
        assertThat(server.call("HGET", "llmrl:{bQ}", "r")).isEqualTo("30");
    }
}
