package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.CallerCounter;
import dev.llmratelimit.engine.CallerPlan;
import dev.llmratelimit.engine.CallerScope;
import dev.llmratelimit.engine.Limit;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.store.CircuitBreaker;
import dev.llmratelimit.store.CircuitBreakerSettings;
import dev.llmratelimit.store.CircuitBreakingAdmissionStore;
import dev.llmratelimit.store.CompensatingAdmissionStore;
import dev.llmratelimit.store.PendingCompensations;
import dev.llmratelimit.testsupport.RedisServer;
import dev.llmratelimit.testsupport.RedisServerExtension;
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

import static dev.llmratelimit.testsupport.Admits.admit;
import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real redis-server frozen (SIGSTOP) while requests wait on it, then let go (SIGCONT): it runs the
 * decisions the client gave up on, and nothing of them may stay counted. Short timeouts (200 ms),
 * a stall of well over the timeout, and a circuit that probes every 100 ms.
 */
class RedisStallTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final Duration STALL = Duration.ofMillis(1500);

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
        RedisAdmissionStore redis = RedisAdmissionStore.create(RedisStoreSettings.parse(Map.of(
                RedisStoreSettings.PREFIX + "address", REDIS.server().address(),
                RedisStoreSettings.PREFIX + "timeout", "200ms")));
        toClose.add(redis);
        circuit = new CircuitBreakingAdmissionStore(redis, new CircuitBreaker(
                new CircuitBreakerSettings(3, Duration.ofMillis(100), Duration.ofMillis(100)), Clock.systemUTC()));
        pending = new PendingCompensations(1000);
        AdmissionStore store = new CompensatingAdmissionStore(circuit, pending, Clock.systemUTC());
        return new RateLimiter(policy(lines), store);
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
        RateLimiter limiter = limiter("models.m.rpm=1000");
        CallerPlan caller = new CallerPlan(List.of(new CallerCounter(CallerScope.KEY, "sk-stalled", 0, 0, 3)),
                60_000, 600_000);
        RedisServer server = REDIS.server();
        admit(limiter, "m", null, null, caller).abort();          // scripts loaded, connection up

        server.pause();
        for (int i = 0; i < 5; i++) {
            Admission open = admit(limiter, "m", null, null, caller);
            assertThat(open.outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_OPEN);
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

    @ParameterizedTest(name = "{0}, {1}")
    @CsvSource({"fail-open, recorded", "fail-closed, recorded", "fail-open, reserve", "fail-closed, reserve"})
    void aWindowServesExactlyItsCapacityAroundAStall(String onStoreFailure, String tokenAdmission) throws Exception {
        boolean reserve = tokenAdmission.equals("reserve");
        // recorded: 10 requests per window; reserve: 1000 tokens, 100 reserved by each request in flight
        RateLimiter limiter = limiter(reserve ? "models.m.tpm=1000" : "models.m.rpm=10",
                "token-admission=" + tokenAdmission, "on-store-failure=" + onStoreFailure);
        int admitted = 0;
        for (int i = 0; i < 3; i++) {
            assertThat(admit(limiter, "m", null, null, 0, 100).outcome()).isEqualTo(Admission.Outcome.ADMITTED);
            admitted++;
        }
        REDIS.server().pause();
        for (int i = 0; i < 6; i++) {
            Admission lost = admit(limiter, "m", null, null, 0, 100);
            assertThat(lost.verdict()).isNull();
        }
        Thread.sleep(STALL.toMillis());
        REDIS.server().resume();

        Limit refusedBy = null;
        for (int i = 0; i < 400 && refusedBy == null; i++) {
            Admission admission = admit(limiter, "m", null, null, 0, 100);
            if (admission.outcome() == Admission.Outcome.ADMITTED) {
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
