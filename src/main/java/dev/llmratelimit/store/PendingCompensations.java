package dev.llmratelimit.store;

import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.Settlement;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Settlements the store did not confirm, waiting to be sent again once it answers: the cancel of
 * a decision whose answer never came (it may still run, or have run), and settlements that timed
 * out. Every one is idempotent by request id, so sending one twice is harmless. Bounded: beyond
 * {@code capacity} the oldest is dropped; one older than its plan's lease is dropped too, since
 * the store has let go of what it held by then. Thread-safe.
 */
public final class PendingCompensations {

    /** Why a pending settlement left the queue, as logs and metrics count it. */
    public enum Fate { QUEUED, APPLIED, EXPIRED, DROPPED }

    private record Pending(Plan plan, Settlement settlement, long expiresAt) {
    }

    private final int capacity;
    private final Deque<Pending> queue = new ArrayDeque<>();
    private final AtomicLong[] counts = new AtomicLong[Fate.values().length];

    public PendingCompensations(int capacity) {
        this.capacity = capacity;
        for (int i = 0; i < counts.length; i++) {
            counts[i] = new AtomicLong();
        }
    }

    /** Queues a settlement, dropping the oldest when full. */
    synchronized void add(Plan plan, Settlement settlement, long now) {
        if (queue.size() >= capacity) {
            queue.pollFirst();
            counts[Fate.DROPPED.ordinal()].incrementAndGet();
        }
        queue.addLast(new Pending(plan, settlement, now + plan.leaseMillis()));
        counts[Fate.QUEUED.ordinal()].incrementAndGet();
    }

    boolean isEmpty() {
        synchronized (this) {
            return queue.isEmpty();
        }
    }

    /** The oldest pending settlement still worth sending, or {@code null}; expired ones are counted and dropped. */
    synchronized Entry next(long now) {
        Pending pending;
        while ((pending = queue.pollFirst()) != null) {
            if (pending.expiresAt() > now) {
                return new Entry(pending.plan(), pending.settlement(), pending.expiresAt());
            }
            counts[Fate.EXPIRED.ordinal()].incrementAndGet();
        }
        return null;
    }

    /** Puts back an entry that could not be sent, at the front. */
    synchronized void retryLater(Entry entry) {
        queue.addFirst(new Pending(entry.plan(), entry.settlement(), entry.expiresAt()));
    }

    /** Puts back an entry whose node is skipped for now, at the back, so entries for other nodes go first. */
    synchronized void retryAfterOthers(Entry entry) {
        queue.addLast(new Pending(entry.plan(), entry.settlement(), entry.expiresAt()));
    }

    void applied() {
        counts[Fate.APPLIED.ordinal()].incrementAndGet();
    }

    /** How many settlements met this fate since start ({@link Fate#QUEUED}: entered the queue). */
    public long count(Fate fate) {
        return counts[fate.ordinal()].get();
    }

    /** How many wait now. */
    public synchronized int size() {
        return queue.size();
    }

    record Entry(Plan plan, Settlement settlement, long expiresAt) {
    }
}
