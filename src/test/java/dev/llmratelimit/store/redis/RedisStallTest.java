package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.CallerCounter;
import dev.llmratelimit.engine.CallerPlan;
import dev.llmratelimit.engine.CallerScope;
import dev.llmratelimit.engine.Limit;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.store.CircuitBreaker;
import dev.llmratelimit.store.CircuitBreakerSettings;
import dev.llmratelimit.store.CircuitBreakingAdmissionStore;
import dev.llmratelimit.store.CompensatingAdmissionStore;
import dev.llmratelimit.store.PendingCompensations;
import dev.llmratelimit.testsupport.RedisServer;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.testsupport.StartTogether;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.llmratelimit.testsupport.Admits.admit;
import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real redis-server frozen (SIGSTOP) while requests wait on it, then let go (SIGCONT): it runs the
 * decisions the client gave up on. What was refused (fail-closed) may not stay counted; what was
 * served (fail-open) is counted, once. Short timeouts (200 ms), a stall of well over the timeout,
 * and a circuit that probes every 100 ms.
 */
class RedisStallTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final Duration STALL = Duration.ofMillis(1500);
    private static final Usage HUNDRED_TOKENS = new Usage(0, 100, 0);

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private CircuitBreakingAdmissionStore circuit;
    private PendingCompensations pending;

    @AfterEach
    void cleanUp() throws Exception {
        REDIS.server().resume();
        for (AutoCloseable closeable : toClose) {
            closeable.close();
        }
    }

    private RateLimiter limiter(String... lines) {
        Instance instance = instance(policy(lines));
        circuit = instance.circuit();
        pending = instance.pending();
        return instance.limiter();
    }

    /** One application instance: its own Redisson client, circuit and queue of compensations. */
    private record Instance(RateLimiter limiter, CircuitBreakingAdmissionStore circuit, PendingCompensations pending) {
    }

    private Instance instance(RateLimitPolicy policy) {
        RedisAdmissionStore redis = RedisAdmissionStore.create(RedisStoreSettings.parse(Map.of(
                RedisStoreSettings.PREFIX + "address", REDIS.server().address(),
                RedisStoreSettings.PREFIX + "timeout", "200ms")));
        toClose.add(redis);
        CircuitBreakingAdmissionStore breaking = new CircuitBreakingAdmissionStore(redis, new CircuitBreaker(
                new CircuitBreakerSettings(3, Duration.ofMillis(100), Duration.ofMillis(100)), Clock.systemUTC()));
        PendingCompensations queue = new PendingCompensations(1000);
        AdmissionStore store = new CompensatingAdmissionStore(breaking, queue, Clock.systemUTC());
        return new Instance(new RateLimiter(policy, store), breaking, queue);
    }

    /** Admits until the store answers again (the circuit closes); returns the first answered admission. */
    private static Admission firstAnswered(RateLimiter limiter, CallerPlan caller) throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            Admission admission = admit(limiter, "m", null, null, caller);
            if (admission.verdict() != null) {
                return admission;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("The store did not answer again");
    }

    @Test
    void afterAStallTheCallerIsServedAsSoonAsTheCircuitClosesWithNoSlotLeaked() throws Exception {
        RateLimiter limiter = limiter("models.m.rpm=1000", "on-store-failure=fail-closed");
        CallerPlan caller = new CallerPlan(List.of(new CallerCounter(CallerScope.KEY, "sk-stalled", 0, 0, 3)),
                60_000, 600_000);
        RedisServer server = REDIS.server();
        admit(limiter, "m", null, null, caller).abort();          // scripts loaded, connection up

        server.pause();
        for (int i = 0; i < 5; i++) {
            Admission refused = admit(limiter, "m", null, null, caller);
            assertThat(refused.outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_CLOSED);
        }
        assertThat(circuit.isOpen()).isTrue();
        assertThat(pending.size()).isEqualTo(3);                 // three reached Redis; the circuit skipped two
        Thread.sleep(STALL.toMillis());
        server.resume();                                         // Redis now runs the three and takes all slots

        Admission first = firstAnswered(limiter, caller);
        assertThat(first.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        Admission second = admit(limiter, "m", null, null, caller);
        Admission third = admit(limiter, "m", null, null, caller);
        assertThat(second.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(third.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(admit(limiter, "m", null, null, caller).refusal().current()).isEqualTo(3);
        assertThat(pending.count(PendingCompensations.Fate.APPLIED)).isEqualTo(3);
        first.abort();
        second.abort();
        third.abort();
        assertThat(server.call("ZCARD", "llmrl:{k.c2stc3RhbGxlZA}:s")).isEqualTo(0L);
    }

    @Test
    void requestsServedThroughAStallAreCountedOnceAndGiveTheirSlotsBack() throws Exception {
        RateLimiter limiter = limiter("models.m.rpm=1000");
        CallerPlan caller = new CallerPlan(List.of(new CallerCounter(CallerScope.KEY, "sk-open", 0, 0, 3)),
                60_000, 600_000);
        RedisServer server = REDIS.server();
        admit(limiter, "m", null, null, caller).complete(HUNDRED_TOKENS);

        server.pause();
        List<Admission> servedOpen = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Admission open = admit(limiter, "m", null, null, caller);
            assertThat(open.outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_OPEN);
            servedOpen.add(open);
        }
        assertThat(pending.size()).isZero();                    // served, so nothing to cancel
        Thread.sleep(STALL.toMillis());
        server.resume();                                         // three decisions run late and take every slot
        servedOpen.forEach(open -> open.complete(HUNDRED_TOKENS));

        Admission first = firstAnswered(limiter, caller);
        assertThat(first.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        Admission second = admit(limiter, "m", null, null, caller);
        Admission third = admit(limiter, "m", null, null, caller);
        assertThat(third.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(admit(limiter, "m", null, null, caller).refusal().current()).isEqualTo(3);
        for (Admission admission : List.of(first, second, third)) {
            admission.complete(HUNDRED_TOKENS);
        }
        assertThat(server.call("ZCARD", "llmrl:{k.c2stb3Blbg}:s")).isEqualTo(0L);
        // 1 before, 5 served through the stall, 3 after it (the refusal counts nothing)
        assertThat(server.call("HGET", "llmrl:{bQ}", "r")).isEqualTo("9");
    }

    /**
     * Three instances, 300 requests at once on a cold start while Redis is frozen for longer than the
     * client's timeout: every request a client gave up on is served (fail-open), and counted once,
     * whether its decision ran late or never ran.
     */
    @Test
    void aColdBurstWithClientTimeoutsCountsExactlyWhatWasServed() throws Exception {
        RateLimitPolicy policy = policy("models.m.rpm=120", "models.flush.rpm=100000");
        List<Instance> instances = List.of(instance(policy), instance(policy), instance(policy));
        AtomicInteger served = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        StartTogether burst = new StartTogether();
        for (Instance instance : instances) {
            for (int t = 0; t < 20; t++) {
                burst.add(() -> {
                    for (int r = 0; r < 5; r++) {
                        Admission admission = admit(instance.limiter(), "m", null);
                        if (admission.permitsCall()) {
                            served.incrementAndGet();
                            admission.complete(HUNDRED_TOKENS);
                        } else {
                            refused.incrementAndGet();
                        }
                    }
                    return null;
                });
            }
        }
        RedisServer server = REDIS.server();
        server.pause();
        Thread thaw = new Thread(() -> {
            try {
                Thread.sleep(400);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            server.resume();
        });
        thaw.start();
        burst.run(Duration.ofSeconds(60));
        thaw.join();

        for (Instance instance : instances) {                    // what the instances still owe reaches Redis
            for (int i = 0; i < 200 && instance.pending().size() > 0; i++) {
                admit(instance.limiter(), "flush", null);
                Thread.sleep(20);
            }
            assertThat(instance.pending().size()).isZero();
            assertThat(instance.pending().count(PendingCompensations.Fate.EXPIRED)).isZero();
        }
        assertThat(served.get() + refused.get()).isEqualTo(300);
        assertThat(served.get()).isGreaterThanOrEqualTo(120);
        assertThat(server.call("HGET", "llmrl:{bQ}", "r")).isEqualTo(Integer.toString(served.get()));
    }

    @ParameterizedTest(name = "{0}, {1}")
    @CsvSource({"fail-open, recorded", "fail-closed, recorded", "fail-open, reserve", "fail-closed, reserve"})
    void aWindowServesExactlyItsCapacityAroundAStall(String onStoreFailure, String tokenAdmission) throws Exception {
        boolean reserve = tokenAdmission.equals("reserve");
        // recorded: 10 requests per window; reserve: 1000 tokens, 100 reserved by each request in flight
        RateLimiter limiter = limiter(reserve ? "models.m.tpm=1000" : "models.m.rpm=10",
                "token-admission=" + tokenAdmission, "on-store-failure=" + onStoreFailure);
        int admitted = 0;
        for (int i = 0; i < 3; i++) {
            Admission admission = admit(limiter, "m", null, null, 0, 100);
            assertThat(admission.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
            admission.complete(HUNDRED_TOKENS);
            admitted++;
        }
        REDIS.server().pause();
        for (int i = 0; i < 6; i++) {
            Admission lost = admit(limiter, "m", null, null, 0, 100);
            assertThat(lost.verdict()).isNull();
            if (lost.permitsCall()) {                            // served (fail-open): counted all the same
                lost.complete(HUNDRED_TOKENS);
                admitted++;
            }
        }
        Thread.sleep(STALL.toMillis());
        REDIS.server().resume();

        Limit refusedBy = null;
        for (int i = 0; i < 400 && refusedBy == null; i++) {
            Admission admission = admit(limiter, "m", null, null, 0, 100);
            if (admission.outcome() == Admission.Outcome.ADMITTED) {
                admission.complete(HUNDRED_TOKENS);
                admitted++;
            } else if (admission.outcome() == Admission.Outcome.REFUSED) {
                refusedBy = admission.verdict().refusedBy();
            } else {
                Thread.sleep(20);                                // the circuit is still open
            }
        }
        assertThat(refusedBy).isEqualTo(reserve ? Limit.MODEL_TOKENS : Limit.MODEL_REQUESTS);
        assertThat(admitted).isEqualTo(10);
    }
}
