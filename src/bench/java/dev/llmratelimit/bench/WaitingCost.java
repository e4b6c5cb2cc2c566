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
 * waiter, and how soon a waiter is admitted after a finished request frees capacity; and, in a JVM of its
 * own ({@link WaitingHeap}), the heap that waiters with large bodies take and the byte budget that bounds it.
 */
final class WaitingCost {

    static final int WAITERS = 1_000;
    static final int GROUPS = 10;
    static final Duration POLL = Duration.ofMillis(250);

    record Result(double seconds, long decisions, double roomCpuMillisPerSecond, long roomBytes,
                  double wakeP50Micros, double wakeP99Micros, WaitingHeap.Result heap) {
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
            long heapBefore = Heap.usedAfterGc();
            for (int i = 0; i < WAITERS; i++) {
                WaitingDecision.enter(room, false, groups.get(i % GROUPS), i % 3, Clock.systemUTC(), 3_600_000);
            }
            bytes = Heap.usedAfterGc() - heapBefore;
            Thread.sleep(500);                                   // the first decisions of every waiter
            long decisionsBefore = total(groups);
            long cpuBefore = roomThreadCpuNanos();
            Thread.sleep((long) (seconds * 1000));
            decisions = total(groups) - decisionsBefore;
            cpu = (roomThreadCpuNanos() - cpuBefore) / 1e6 / seconds;
        }
        long[] wake = wakeUps(settings.mode().equals("full") ? 500 : 100);
        Arrays.sort(wake);
        return new Result(seconds, decisions, cpu, bytes, wake[wake.length / 2] / 1e3, wake[(int) (wake.length * 0.99)] / 1e3,
                WaitingHeap.measureInChildJvm());
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
        writeHeap(report, result.heap());
    }

    private static void writeHeap(Report report, WaitingHeap.Result heap) {
        double bodyBytes = WaitingHeap.BODY_MIB * 1048576.0;
        double roomHeap = heap.heapPerWaiterBytes() * (double) heap.waiters();
        boolean bounded = heap.outOfMemoryErrors() == 0 && heap.other() == 0 && heap.waitingBytes() <= heap.maxWaitingBytes()
                && heap.waiters() + heap.refusedAtOnce() == heap.requests();
        report.paragraph("Large bodies waiting, in a JVM of its own with `" + WaitingHeap.HEAP + "`: the demo endpoint "
                        + "behind the filter, its model full (`rpd=1`, used up first), `max-wait=120s`, the room's bounds at "
                        + "their defaults; " + heap.requests() + " requests of " + WaitingHeap.BODY_MIB + " MiB ("
                        + Report.fixed(heap.requests() * (double) WaitingHeap.BODY_MIB, 0) + " MiB, more than the heap) "
                        + "sent one after the other, each on its own connection and left open, the next sent once the "
                        + "previous one waits or is answered.")
                .table(List.of("measure", "value"), List.of(
                        List.of("waiting (bodies held / `max-waiting-bytes`)", heap.waiters() + " ("
                                + mib(heap.waitingBytes()) + " / " + mib(heap.maxWaitingBytes()) + ")"),
                        List.of("answered 429 at once", Integer.toString(heap.refusedAtOnce())),
                        List.of("answered otherwise (none expected)", Integer.toString(heap.other())),
                        List.of("heap per waiting request with its body (used heap after GC, with and without them)",
                                mib(heap.heapPerWaiterBytes()) + " (" + Report.ratio(heap.heapPerWaiterBytes() / bodyBytes)
                                        + " its body)"),
                        List.of("used heap after GC with the room full / peak while sending / max heap",
                                mib(heap.heapWithWaitersBytes()) + " / " + mib(heap.peakHeapBytes()) + " / "
                                        + mib(heap.maxHeapBytes())),
                        List.of("OutOfMemoryError in the server's log", Integer.toString(heap.outOfMemoryErrors()))))
                .target("under `" + WaitingHeap.HEAP + "`, " + WaitingHeap.BODY_MIB + " MiB bodies offered past the heap "
                        + "wait only within `max-waiting-bytes`, the others get their 429 at once, and no "
                        + "OutOfMemoryError", bounded, heap.waiters() + " waiting with " + mib(heap.waitingBytes())
                        + ", " + heap.refusedAtOnce() + " answered 429, " + heap.outOfMemoryErrors() + " OutOfMemoryError")
                .target("a waiter holds its body once: the full room's heap at most 1.25x `max-waiting-bytes`",
                        roomHeap <= 1.25 * heap.maxWaitingBytes(), Report.ratio(roomHeap / heap.maxWaitingBytes()))
                .endTargets();
    }

    private static String mib(double bytes) {
        return Report.fixed(bytes / 1048576.0, 1) + " MiB";
    }
}
