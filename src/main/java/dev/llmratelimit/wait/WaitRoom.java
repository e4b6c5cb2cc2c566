package dev.llmratelimit.wait;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where refused requests wait for capacity (docs/instead-of-429.md). One timer thread decides waiters again,
 * in order (rank, then arrival), when capacity can have changed: when {@link #signal()} says so (a
 * local request finished), when a refusal said it would clear, when a waiter's time is up, and at
 * the latest after the poll interval (capacity freed by other instances). It never spins: between
 * those moments it sleeps. In one pass a refusal of one counter group is not asked again for later
 * waiters of the same group, so a pass costs one decision per group that is still full.
 */
public final class WaitRoom implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(WaitRoom.class.getName());

    /** A request waiting for capacity. */
    public interface Waiter {

        /** Smaller ranks are decided first. */
        int rank();

        /** When the wait ends in a refusal, on the room's clock. */
        long deadlineMillis();

        /** Decides the request again; {@code null} when it was admitted (and has gone on), else what refused it. */
        Refusal attempt();

        /** The wait is over without capacity: answer the refusal the request would have had. */
        void expire();

        /** Deciding it again failed (a bug, not a refusal): its entry point's {@code on-internal-error} answers it. */
        void fail(RuntimeException failure);

        /** The bytes it holds while it waits (its request body), counted against {@link Capacity#maxBytes()}. */
        default long bytes() {
            return 0;
        }

        /** Whose request it is, counted against {@link Capacity#maxPerCaller()}; {@code null}: nobody's in particular. */
        default Object caller() {
            return null;
        }
    }

    /**
     * What the room holds at most: waiters, bytes of their request bodies, waiters of one caller.
     * A request that does not fit gets the refusal it would have had, at once.
     */
    public record Capacity(int maxWaiters, long maxBytes, int maxPerCaller) {

        /** Only a number of waiters; bytes and callers unbounded. */
        public static Capacity of(int maxWaiters) {
            return new Capacity(maxWaiters, Long.MAX_VALUE, Integer.MAX_VALUE);
        }
    }

    /**
     * @param group          the counter group that refused (waiters refused by the same group are not asked again in one pass)
     * @param clearsInMillis when the refusal would clear if nothing else happened
     */
    public record Refusal(Object group, long clearsInMillis) {
    }

    /** A place in the room, to leave it before its turn (the client went away). */
    public final class Ticket implements Comparable<Ticket> {
        private final Waiter waiter;
        private final long arrival;
        /** The group that refused this waiter last; {@code null} before its first decision here. */
        private volatile Object refusedBy;

        private Ticket(Waiter waiter, long arrival) {
            this.waiter = waiter;
            this.arrival = arrival;
        }

        /** Leaves the room; no effect once the waiter was admitted or expired. */
        public void leave() {
            take(this);
        }

        @Override
        public int compareTo(Ticket other) {
            int byRank = Integer.compare(waiter.rank(), other.waiter.rank());
            return byRank != 0 ? byRank : Long.compare(arrival, other.arrival);
        }
    }

    private final Clock clock;
    private final Occupancy occupancy;
    private final long pollMillis;
    private final ScheduledExecutorService timer;
    private final ConcurrentSkipListSet<Ticket> waiting = new ConcurrentSkipListSet<>();
    private final AtomicLong arrivals = new AtomicLong();
    private final Object scheduleLock = new Object();
    private ScheduledFuture<?> nextPass;
    private long nextPassAt = Long.MAX_VALUE;

    /** A room bounded by its number of waiters only. */
    public WaitRoom(Clock clock, int maxWaiters, Duration pollInterval) {
        this(clock, Capacity.of(maxWaiters), pollInterval);
    }

    public WaitRoom(Clock clock, Capacity capacity, Duration pollInterval) {
        this(clock, capacity, pollInterval, Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "llm-ratelimit-wait");
            thread.setDaemon(true);
            return thread;
        }));
    }

    /** @param timer runs every pass; tests give one that runs nothing and call {@link #pass()} themselves */
    WaitRoom(Clock clock, int maxWaiters, Duration pollInterval, ScheduledExecutorService timer) {
        this(clock, Capacity.of(maxWaiters), pollInterval, timer);
    }

    WaitRoom(Clock clock, Capacity capacity, Duration pollInterval, ScheduledExecutorService timer) {
        this.clock = clock;
        this.occupancy = new Occupancy(capacity);
        this.pollMillis = pollInterval.toMillis();
        this.timer = timer;
    }

    /**
     * Lets a refused request wait; {@code null} when the room is full (the request gets its refusal at once).
     * The first decision again comes at the latest after the poll interval.
     */
    public Ticket enter(Waiter waiter, long clearsInMillis) {
        Ticket ticket = ticketFor(waiter);
        return enter(ticket, clearsInMillis) ? ticket : null;
    }

    /**
     * A place for this waiter that is not in the room yet: a waiter that must know its ticket before
     * any pass can decide it takes the ticket first, then {@link #enter(Ticket, long) enters} with it.
     */
    public Ticket ticketFor(Waiter waiter) {
        return new Ticket(waiter, arrivals.incrementAndGet());
    }

    /** Puts the ticket in the room; {@code false} when it does not fit ({@link Capacity}). */
    public boolean enter(Ticket ticket, long clearsInMillis) {
        if (!occupancy.enter(ticket.waiter)) {
            return false;
        }
        waiting.add(ticket);
        long now = clock.millis();
        schedule(Math.min(ticket.waiter.deadlineMillis(), now + Math.max(0, Math.min(clearsInMillis, pollMillis))));
        return true;
    }

    /** Capacity may have changed (a request of this instance finished): decide the waiters again soon. */
    public void signal() {
        if (!waiting.isEmpty()) {
            schedule(clock.millis());
        }
    }

    public int waiters() {
        return occupancy.waiters();
    }

    /** The bytes the waiters hold together. */
    public long waitingBytes() {
        return occupancy.bytes();
    }

    /** One round over the waiters, in order; schedules the next. */
    void pass() {
        synchronized (scheduleLock) {
            nextPass = null;
            nextPassAt = Long.MAX_VALUE;
        }
        long now = clock.millis();
        long next = Long.MAX_VALUE;
        Set<Object> stillFull = new HashSet<>();
        long firstRefusalClears = Long.MAX_VALUE;
        List<Ticket> inOrder = new ArrayList<>(waiting);
        for (Ticket ticket : inOrder) {
            Waiter waiter = ticket.waiter;
            long decidedAt = clock.millis();
            if (decidedAt >= firstRefusalClears) {
                // A window rolled during this pass: the capacity it freed goes to the waiters refused
                // before the roll, in order, not to whoever comes next. A new pass starts from the top.
                next = decidedAt;
                break;
            }
            if (now >= waiter.deadlineMillis()) {
                // Decided once more: it may fit now, and the refusal it answers must be the current one (retry-after).
                if (decide(ticket) != null && take(ticket)) {
                    run(waiter::expire);
                }
                continue;
            }
            next = Math.min(next, waiter.deadlineMillis());
            if (ticket.refusedBy == null || !stillFull.contains(ticket.refusedBy)) {
                Refusal refusal = decide(ticket);
                if (refusal != null) {
                    stillFull.add(refusal.group());
                    next = Math.min(next, now + Math.max(1, refusal.clearsInMillis()));
                    firstRefusalClears = Math.min(firstRefusalClears, decidedAt + Math.max(1, refusal.clearsInMillis()));
                }
            }
        }
        if (!waiting.isEmpty()) {
            schedule(Math.min(next, now + pollMillis));
        }
    }

    /** Decides one waiter again; the refusal, or {@code null} when it went on (or could not be asked). */
    private Refusal decide(Ticket ticket) {
        Refusal refusal;
        try {
            refusal = ticket.waiter.attempt();
        } catch (RuntimeException e) {
            if (take(ticket)) {
                run(() -> ticket.waiter.fail(e));
            }
            return null;
        }
        if (refusal == null) {
            take(ticket);
            return null;
        }
        ticket.refusedBy = refusal.group();
        return refusal;
    }

    private boolean take(Ticket ticket) {
        if (waiting.remove(ticket)) {
            occupancy.leave(ticket.waiter);
            return true;
        }
        return false;
    }

    private static void run(Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Answering a request whose wait ended failed", e);
        }
    }

    private void schedule(long at) {
        synchronized (scheduleLock) {
            if (nextPass != null && nextPassAt <= at) {
                return;
            }
            if (nextPass != null) {
                nextPass.cancel(false);
            }
            nextPassAt = at;
            nextPass = timer.schedule(this::pass, Math.max(0, at - clock.millis()), TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
        for (Ticket ticket : new ArrayList<>(waiting)) {
            if (take(ticket)) {
                run(ticket.waiter::expire);
            }
        }
    }
}
