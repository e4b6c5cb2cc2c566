package dev.llmratelimit.store.redis;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.CallerCounter;
import dev.llmratelimit.engine.CallerPlan;
import dev.llmratelimit.engine.CallerScope;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.testsupport.Policies;
import dev.llmratelimit.testsupport.RedisServer;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static dev.llmratelimit.testsupport.Admits.admit;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A runtime on a real redis-server stops with ten calls in flight (each holding a parallel slot and a
 * token reservation): it admits no new request (fail-open or not), lets two calls finish within the
 * grace period, settles the eight still running when it ends, and leaves nothing held in Redis. A
 * request refused (fail-closed) while the store's circuit was open is no call in flight: the stop
 * counts nothing for it.
 */
class RedisGracefulStopTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final String KEY = "llmrl:{k.c2stc3RvcA}";                // base64url("sk-stop")
    private static final String MODEL = "llmrl:{bQ}";                        // base64url("m")

    @Test
    void stoppingLetsCallsInFlightFinishThenSettlesTheRestAndAdmitsNothingNew() throws Exception {
        RedisServer server = REDIS.server();
        RateLimitRuntime runtime = RateLimitRuntime.create(Policies.properties("models.m.tpm=100000",
                "token-admission=reserve", "store=redis", "redis.address=" + server.address(),
                "on-store-failure=fail-open", "stop-grace-period=500ms"), null);
        RateLimiter limiter = runtime.limiter();
        CallerPlan caller = new CallerPlan(List.of(new CallerCounter(CallerScope.KEY, "sk-stop", 0, 0, 10)),
                60_000, 600_000);
        List<Admission> inFlight = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Admission admission = admit(limiter, "m", null, null, 0, 100, caller);
            assertThat(admission.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
            inFlight.add(admission);
        }
        assertThat(server.call("ZCARD", KEY + ":s")).isEqualTo(10L);
        assertThat(server.call("HGET", MODEL, "t")).isEqualTo("1000");       // 100 reserved by each

        CompletableFuture<Void> stopped = CompletableFuture.runAsync(runtime::close);
        Thread.sleep(100);
        Admission duringStop = admit(limiter, "m", null, null, 0, 100, caller);
        assertThat(duringStop.outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_CLOSED);   // 503, even fail-open
        inFlight.get(0).complete(new Usage(0, 30, 0));                         // two finish within the grace period
        inFlight.get(1).complete(new Usage(0, 40, 0));
        stopped.get();

        assertThat(server.call("ZCARD", KEY + ":s")).isEqualTo(0L);           // every slot given back
        assertThat(server.call("HGET", MODEL, "t")).isEqualTo(String.valueOf(30 + 40 + 8 * 100));
        assertThat(server.call("KEYS", "llmrl:*:req:*")).isEqualTo(List.of());  // no decision left open
        inFlight.get(2).complete(new Usage(0, 10, 0));                         // finishing after the stop changes nothing
        assertThat(server.call("HGET", MODEL, "t")).isEqualTo(String.valueOf(30 + 40 + 8 * 100));
    }

    @Test
    void requestsRefusedWhileTheCircuitWasOpenAreNotCountedAtStop() throws Exception {
        RedisServer server = REDIS.server();
        RateLimitRuntime runtime = RateLimitRuntime.create(Policies.properties("models.m.rpm=1000", "store=redis",
                "redis.address=" + server.address(), "redis.timeout=200ms", "on-store-failure=fail-closed",
                "store-failure-threshold=1", "store-backoff=1s", "store-probe-interval=100ms",
                "stop-grace-period=100ms"), null);
        RateLimiter limiter = runtime.limiter();
        admit(limiter, "m", null).complete(new Usage(1, 1, 0));              // served and counted: r = 1
        server.pause();
        Admission timedOut = admit(limiter, "m", null);                       // opens the circuit
        assertThat(timedOut.outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_CLOSED);
        for (int i = 0; i < 10; i++) {                                        // refused at once: never sent
            assertThat(admit(limiter, "m", null).outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_CLOSED);
        }
        server.resume();
        Thread.sleep(1_200);                                                  // the circuit lets a probe through

        runtime.close();

        assertThat(server.call("HGET", MODEL, "r")).isEqualTo("1");           // only the served request
    }
}
