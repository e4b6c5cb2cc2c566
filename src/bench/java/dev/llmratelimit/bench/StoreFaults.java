package dev.llmratelimit.bench;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.testsupport.Policies;
import dev.llmratelimit.testsupport.RedisServer;
import dev.llmratelimit.usage.Usage;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.llmratelimit.testsupport.Admits.admit;

/**
 * Part 10: what each {@code on-store-failure} mode serves while Redis is away, against the capacity.
 * Three instances (runtimes with their own Redisson client) share one redis-server and keep sending
 * requests (each call takes 20 ms; a refused client waits 20 ms); Redis is killed (SIGKILL, then
 * started again, empty) or frozen (SIGSTOP, then SIGCONT) for a while in the middle of one window.
 */
final class StoreFaults {

    static final List<String> MODES = List.of("fail-open", "fail-closed", "local");
    static final int INSTANCES = 3;
    static final int THREADS_PER_INSTANCE = 4;
    static final int RPM = 100;
    private static final long CALL_MILLIS = 20;

    enum Fault { KILL, STALL }

    /**
     * @param recoveryMillis from Redis answering again until every instance's circuits are closed (a call
     *                       was answered); -1 if that took longer than 1.5 s
     */
    record Result(String mode, Fault fault, int served, int servedDuringFault, int refused, int unavailable,
                  long recoveryMillis) {
    }

    private final RedisServer redis;
    private final long faultMillis;

    StoreFaults(BenchSettings settings, RedisServer redis) {
        this.redis = redis;
        this.faultMillis = settings.mode().equals("full") ? 5_000 : 1_500;
    }

    List<Result> measure() throws Exception {
        List<Result> results = new ArrayList<>();
        for (String mode : MODES) {
            List<RateLimitRuntime> runtimes = new ArrayList<>();
            try {
                for (int i = 0; i < INSTANCES; i++) {
                    runtimes.add(RateLimitRuntime.create(Policies.properties("models.stall.rpm=" + RPM,
                            "models.kill.rpm=" + RPM, "window=60s", "on-store-failure=" + mode, "store=redis",
                            "redis.address=" + redis.address(), "redis.key-prefix=bench-fault-" + mode + ":",
                            "redis.timeout=200ms", "store-backoff=200ms", "store-probe-interval=100ms"), null));
                }
                if (mode.equals("local")) {
                    Thread.sleep(5_500);                     // every instance has seen the three announce themselves
                }
                results.add(run(mode, Fault.STALL, runtimes));
                results.add(run(mode, Fault.KILL, runtimes));
            } finally {
                runtimes.forEach(RateLimitRuntime::close);
            }
        }
        return results;
    }

    private Result run(String mode, Fault fault, List<RateLimitRuntime> runtimes) throws Exception {
        String model = fault == Fault.KILL ? "kill" : "stall";
        AtomicInteger served = new AtomicInteger();
        AtomicInteger servedDuringFault = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger unavailable = new AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean faulty = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
        ExecutorService threads = Executors.newFixedThreadPool(INSTANCES * THREADS_PER_INSTANCE);
        for (RateLimitRuntime runtime : runtimes) {
            for (int t = 0; t < THREADS_PER_INSTANCE; t++) {
                threads.submit(() -> {
                    while (running.get()) {
                        Admission admission = admit(runtime.limiter(), model, null);
                        if (admission.permitsCall()) {
                            served.incrementAndGet();
                            if (faulty.get()) {
                                servedDuringFault.incrementAndGet();
                            }
                            sleep(CALL_MILLIS);
                            admission.complete(new Usage(10, 20, 0));
                        } else {
                            (admission.outcome() == Admission.Outcome.REFUSED ? refused : unavailable).incrementAndGet();
                            sleep(CALL_MILLIS);
                        }
                    }
                    return null;
                });
            }
        }
        sleep(500);
        faulty.set(true);
        if (fault == Fault.KILL) {
            redis.crash();
        } else {
            redis.pause();
        }
        sleep(faultMillis);
        if (fault == Fault.KILL) {
            redis.start();
        } else {
            redis.resume();
        }
        long back = System.nanoTime();
        faulty.set(false);
        long recovery = -1;
        while (System.nanoTime() - back < TimeUnit.MILLISECONDS.toNanos(1_500)) {
            if (runtimes.stream().allMatch(runtime -> runtime.status().read().store().healthy())) {
                recovery = (System.nanoTime() - back) / 1_000_000;
                break;
            }
            sleep(5);
        }
        sleep(Math.max(0, 1_500 - (System.nanoTime() - back) / 1_000_000));
        running.set(false);
        threads.shutdown();
        threads.awaitTermination(10, TimeUnit.SECONDS);
        return new Result(mode, fault, served.get(), servedDuringFault.get(), refused.get(), unavailable.get(), recovery);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void write(Report report, List<Result> results, long faultMillis) {
        report.heading("10. Store faults: served against capacity")
                .paragraph(INSTANCES + " instances (runtimes with their own Redisson client, `redis.timeout=200ms`, "
                        + "`store-backoff=200ms`, `store-probe-interval=100ms`) share one redis-server; "
                        + THREADS_PER_INSTANCE + " threads each keep sending requests to a model with `rpm=" + RPM
                        + "` (window 60 s, so the whole run is one window); a call takes " + CALL_MILLIS + " ms. After 0.5 s "
                        + "Redis is killed (SIGKILL, started again empty: a new window) or frozen (SIGSTOP, then SIGCONT) for "
                        + faultMillis + " ms; the run ends 1.5 s after Redis is back. Capacity is " + RPM + " per window "
                        + "(a kill restarts the window: up to " + 2 * RPM + " over the run). Recovery is the time from Redis "
                        + "answering again (SIGCONT sent, or the new process answering PING) until every instance's circuits are "
                        + "closed again (a call of each was answered).")
                .table(List.of("on-store-failure", "fault", "capacity", "served", "served while Redis was away",
                        "429", "503", "recovery (ms)"), results.stream().map(r -> List.of(r.mode(),
                        r.fault().name().toLowerCase(java.util.Locale.ROOT), Integer.toString(r.fault() == Fault.KILL ? 2 * RPM : RPM),
                        Integer.toString(r.served()), Integer.toString(r.servedDuringFault()), Integer.toString(r.refused()),
                        Integer.toString(r.unavailable()), r.recoveryMillis() < 0 ? "none within 1.5 s"
                                : Long.toString(r.recoveryMillis()))).toList());
    }

    long faultMillis() {
        return faultMillis;
    }
}
