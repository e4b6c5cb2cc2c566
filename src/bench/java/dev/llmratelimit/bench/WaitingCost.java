package dev.llmratelimit.bench;

import dev.llmratelimit.wait.WaitRoom;
import dev.llmratelimit.wait.WaitingDecision;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Part 6: what waiting instead of a 429 costs (docs/instead-of-429.md). A thousand waiters in the room of
 * one instance, refused by ten counter groups that stay full: the CPU of the room's thread and the
 * decisions it makes per second (it must sleep between passes, never spin), the room's memory per
 * waiter, and how soon a waiter is admitted after a finished request frees capacity.
 */
final class WaitingCost {

    static final int WAITERS = 1_000;
    static final int GROUPS = 10;
    static final Duration POLL = Duration.ofMillis(250);

    record Result(double seconds, long decisions, double roomCpuMillisPerSecond, long roomBytes,
                  double wakeP50Micros, double wakeP99Micros) {
    }

    private final BenchSettings settings;

    WaitingCost(BenchSettings settings) {
        this.settings = settings;
    }

    /** A decision that is refused until capacity is set, counting how often it was made. */
    private static final class Capacity implements WaitingDecision.Decider<Boolean> {
        final AtomicInteger free = new AtomicInteger();
        final AtomicLong decisions = new AtomicLong();
        private final String group;

        Capacity(String group) {
            this.group = group;
        }

        @Override
        public Boolean decide() {
            decisions.incrementAndGet();
            return free.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
        }

        @Override
        public boolean admits(Boolean decision) {
            return decision;
        }

        @Override
        public Object refusingGroup(Boolean decision) {
            return group;
        }

        @Override
        public long clearsInMillis(Boolean decision) {
            return 60_000;
        }

        @Override
        public void giveBack(Boolean decision) {
        }
    }

    Result measure() throws Exception {
        double seconds = settings.mode().equals("full") ? 10 : 3;
        long decisions;
        double cpu;
        long bytes;
        try (WaitRoom room = new WaitRoom(Clock.systemUTC(), WAITERS, POLL)) {
            List<Capacity> groups = new ArrayList<>();
            for (int g = 0; g < GROUPS; g++) {
                groups.add(new Capacity("group-" + g));
            }
            long heapBefore = usedHeapAfterGc();
            for (int i = 0; i < WAITERS; i++) {
                WaitingDecision.enter(room, false, groups.get(i % GROUPS), i % 3, Clock.systemUTC(), 3_600_000);
            }
            bytes = usedHeapAfterGc() - heapBefore;
            Thread.sleep(500);                                   // the first decisions of every waiter
            long decisionsBefore = total(groups);
            long cpuBefore = roomThreadCpuNanos();
            Thread.sleep((long) (seconds * 1000));
            decisions = total(groups) - decisionsBefore;
            cpu = (roomThreadCpuNanos() - cpuBefore) / 1e6 / seconds;
        }
        long[] wake = wakeUps(settings.mode().equals("full") ? 500 : 100);
        Arrays.sort(wake);
        return new Result(seconds, decisions, cpu, bytes, wake[wake.length / 2] / 1e3, wake[(int) (wake.length * 0.99)] / 1e3);
    }

    /** Nanoseconds from "capacity freed and signalled" to "the waiter admitted", one waiter at a time. */
    private static long[] wakeUps(int trials) throws Exception {
        long[] nanos = new long[trials];
        try (WaitRoom room = new WaitRoom(Clock.systemUTC(), WAITERS, POLL)) {
            for (int t = 0; t < trials; t++) {
                Capacity capacity = new Capacity("one");
                WaitingDecision<Boolean> waiting = WaitingDecision.enter(room, false, capacity, 0, Clock.systemUTC(), 60_000);
                CompletableFuture<Long> admittedAt = waiting.outcome().thenApply(admitted -> System.nanoTime());
                Thread.sleep(2);
                long freed = System.nanoTime();
                capacity.free.set(1);
                room.signal();
                nanos[t] = admittedAt.get(5, TimeUnit.SECONDS) - freed;
            }
        }
        return nanos;
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        Runtime runtime = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
        return runtime.totalMemory() - runtime.freeMemory();
    }

    private static long total(List<Capacity> groups) {
        return groups.stream().mapToLong(g -> g.decisions.get()).sum();
    }

    private static long roomThreadCpuNanos() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (ThreadInfo info : threads.dumpAllThreads(false, false)) {
            if (info.getThreadName().equals("llm-ratelimit-wait")) {
                sum += threads.getThreadCpuTime(info.getThreadId());
            }
        }
        return sum;
    }

    static void write(Report report, Result result) {
        double perSecond = result.decisions() / result.seconds();
        double pollBound = GROUPS * (1000.0 / POLL.toMillis());
        report.heading("6. Waiting instead of a 429")
                .paragraph(WAITERS + " waiters in one instance's wait room, refused by " + GROUPS + " counter groups "
                        + "that stay full, for " + Report.fixed(result.seconds(), 0) + " s (poll interval "
                        + POLL.toMillis() + " ms); then one waiter at a time admitted after a finished request frees "
                        + "capacity and signals the room. The room is one daemon thread per runtime; waiting requests "
                        + "hold no container thread (asynchronous servlet).")
                .table(List.of("measure", "value"), List.of(
                        List.of("decisions per second (all " + WAITERS + " waiters)", Report.fixed(perSecond, 1)),
                        List.of("CPU of the room's thread", Report.fixed(result.roomCpuMillisPerSecond(), 2) + " ms per second"),
                        List.of("heap per waiter (used heap after GC, with and without the waiters)",
                                Report.fixed(result.roomBytes() / (double) WAITERS, 0) + " bytes"),
                        List.of("wake-up after capacity frees, p50", Report.fixed(result.wakeP50Micros(), 0) + " us"),
                        List.of("wake-up after capacity frees, p99", Report.fixed(result.wakeP99Micros(), 0) + " us")))
                .target("no spinning: at most one decision per full group per poll interval ("
                        + Report.fixed(pollBound, 0) + "/s)", perSecond <= pollBound * 1.2, Report.fixed(perSecond, 1) + "/s")
                .target("the room's thread uses under 1 % of a core with " + WAITERS + " waiters",
                        result.roomCpuMillisPerSecond() < 10, Report.fixed(result.roomCpuMillisPerSecond(), 2) + " ms/s")
                .target("a waiter is admitted within 1 ms (p50) of capacity freed here", result.wakeP50Micros() < 1_000,
                        Report.fixed(result.wakeP50Micros(), 0) + " us")
                .endTargets();
    }
}
