package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.Admission;
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
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.testsupport.RedisServer;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.AfterEach;
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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A real redis-server at its {@code maxmemory} (noeviction): every decision's first write is
 * refused with OOM. With caller limits on (key requests and parallel slots, team tokens) beside the
 * model's, the circuit must open after {@code store-failure-threshold} failed scripts (no further
 * script reaches Redis), answer as {@code on-store-failure} says, and once memory is free again
 * close at its next probe and limit exactly as before: a refused decision counted nothing anywhere,
 * a request served without an answer (fail-open) is counted once, when it finishes.
 * The circuit runs on a clock the test moves, so back-off and probe interval need no sleeping.
 */
class RedisOutOfMemoryTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final int THRESHOLD = 3;
    private static final Duration BACKOFF = Duration.ofMillis(300);
    private static final Duration PROBE_INTERVAL = Duration.ofMillis(100);
    private static final int MODEL_RPM = 10;
    private static final Usage USAGE = new Usage(40, 60, 0);                 // 100 tokens a request

    private static final String KEY = "llmrl:{k.c2stb29t}";                  // base64url("sk-oom")
    private static final String TEAM = "llmrl:{t.cmVzZWFyY2g}";             // base64url("research")
    private static final String MODEL = GroupKeys.modelKey("llmrl:", "m");
    private static final String FILLER = "filler";
    private static final long MEGABYTE = 1024 * 1024;

    private final MutableClock circuitClock = new MutableClock();
    private RedisAdmissionStore redis;
    private CircuitBreakingAdmissionStore circuit;

    @AfterEach
    void cleanUp() {
        REDIS.server().call("CONFIG", "SET", "maxmemory", "0");
        if (redis != null) {
            redis.close();
        }
    }

    /** The wrapping of store=redis (RedisRuntime), with the circuit on the test's clock. */
    private RateLimiter limiter(String onStoreFailure) {
        redis = RedisAdmissionStore.create(RedisStoreSettings.parse(Map.of(
                RedisStoreSettings.PREFIX + "address", REDIS.server().address(),
                RedisStoreSettings.PREFIX + "timeout", "2s")));
        circuit = new CircuitBreakingAdmissionStore(redis, new CircuitBreaker(
                new CircuitBreakerSettings(THRESHOLD, BACKOFF, PROBE_INTERVAL), circuitClock));
        CompensatingAdmissionStore store = new CompensatingAdmissionStore(circuit, new PendingCompensations(1000),
                Clock.systemUTC());
        return new RateLimiter(policy("models.m.rpm=" + MODEL_RPM, "models.m.tpm=100000",
                "on-store-failure=" + onStoreFailure), store);
    }

    private static CallerPlan caller() {
        return new CallerPlan(List.of(
                new CallerCounter(CallerScope.KEY, "sk-oom", 100, 0, 2),
                new CallerCounter(CallerScope.TEAM, "research", 0, 100_000, 0)), 60_000, 600_000);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"fail-open, STORE_FAILED_OPEN", "fail-closed, STORE_FAILED_CLOSED"})
    void theCircuitOpensUnderOomAndLimitingResumesWithExactCounts(String onStoreFailure, Admission.Outcome failed) {
        RateLimiter limiter = limiter(onStoreFailure);
        RedisServer server = REDIS.server();
        int admitted = 0;
        for (int i = 0; i < 3; i++) {
            Admission admission = admit(limiter, "m", null, null, caller());
            assertThat(admission.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
            admission.complete(USAGE);
            admitted++;
        }

        fillPastMaxmemory(server);
        long before = evalShaCalls(server);
        List<Admission> inFlight = new ArrayList<>();                   // served (fail-open), finished after the outage
        for (int i = 0; i < THRESHOLD; i++) {
            Admission admission = admit(limiter, "m", null, null, caller());
            assertThat(admission.outcome()).isEqualTo(failed);
            assertThat(admission.permitsCall()).isEqualTo(failed == Admission.Outcome.STORE_FAILED_OPEN);
            if (admission.permitsCall()) {
                inFlight.add(admission);
            }
        }
        assertThat(evalShaCalls(server) - before).isEqualTo(THRESHOLD);  // each reached Redis and was refused
        assertThat(circuit.isOpen()).isTrue();

        long open = evalShaCalls(server);
        for (int i = 0; i < 20; i++) {
            Admission admission = admit(limiter, "m", null, null, caller());
            assertThat(admission.outcome()).isEqualTo(failed);
            if (admission.permitsCall()) {
                inFlight.add(admission);
            }
        }
        assertThat(evalShaCalls(server)).isEqualTo(open);                // the open circuit kept them from Redis

        circuitClock.advance(BACKOFF);
        for (int i = 0; i < 2; i++) {
            Admission admission = admit(limiter, "m", null, null, caller());
            assertThat(admission.outcome()).isEqualTo(failed);
            if (admission.permitsCall()) {
                inFlight.add(admission);
            }
        }
        assertThat(evalShaCalls(server)).isEqualTo(open + 1);            // one probe, still out of memory
        assertThat(circuit.isOpen()).isTrue();

        server.call("DEL", FILLER);                                    // memory is free again
        circuitClock.advance(PROBE_INTERVAL);
        Admission probe = admit(limiter, "m", null, null, caller());
        assertThat(probe.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(circuit.isOpen()).isFalse();
        probe.complete(USAGE);
        admitted++;
        inFlight.forEach(served -> served.complete(USAGE));             // served means counted
        admitted += inFlight.size();

        Admission admission;
        while ((admission = admit(limiter, "m", null, null, caller())).outcome() == Admission.Outcome.ADMITTED) {
            admission.complete(USAGE);
            admitted++;
        }
        assertThat(admission.verdict().refusedBy()).isEqualTo(Limit.MODEL_REQUESTS);
        // no phantom counts from the OOM failures; fail-open served 25 without limit, counted once each
        assertThat(admitted).isEqualTo(failed == Admission.Outcome.STORE_FAILED_OPEN ? 3 + 1 + 25 : MODEL_RPM);
        assertThat(server.call("HGET", MODEL, "r")).isEqualTo(String.valueOf(admitted));
        assertThat(server.call("HGET", MODEL, "t")).isEqualTo(String.valueOf(admitted * 100));
        assertThat(server.call("HGET", KEY, "r")).isEqualTo(String.valueOf(admitted));
        assertThat(server.call("HGET", TEAM, "t")).isEqualTo(String.valueOf(admitted * 100));
        assertThat(server.call("ZCARD", KEY + ":s")).isEqualTo(0L);    // every slot given back
    }

    /**
     * Sets maxmemory 2 MB above what Redis uses and grows one list by 3 MB in one script: a script's
     * writes after its first are not checked, so Redis ends about 1 MB past its limit, where no
     * connection or buffer coming and going can bring it back below.
     */
    private static void fillPastMaxmemory(RedisServer server) {
        server.call("CONFIG", "SET", "maxmemory-policy", "noeviction");
        server.call("CONFIG", "SET", "maxmemory", String.valueOf(usedMemory(server) + 2 * MEGABYTE));
        server.call("EVAL", "for i = 1, tonumber(ARGV[1]) do redis.call('RPUSH', KEYS[1], ARGV[2]) end return 1",
                "1", FILLER, "48", "x".repeat(64 * 1024));
        assertThatThrownBy(() -> server.call("SET", "one-more", "1")).hasMessageContaining("OOM");
    }

    private static long usedMemory(RedisServer server) {
        for (String line : ((String) server.call("INFO", "memory")).split("\r\n")) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring("used_memory:".length()));
            }
        }
        throw new AssertionError("INFO memory without used_memory");
    }

    private static long evalShaCalls(RedisServer server) {
        return RedisAdmissionStoreTest.commandStats(server).getOrDefault("evalsha", 0L);
    }
}
