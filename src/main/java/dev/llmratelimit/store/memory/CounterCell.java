package dev.llmratelimit.store.memory;

import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.GroupCounts;
import dev.llmratelimit.engine.GroupWindow;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The counters of one window holder (a model with its pools, a caller scope, a budget period): the
 * live and the previous window's counts per field (the model's own is {@code ""}, a pool's its
 * name) and the parallel slots in flight. Guarded by its lock; a swept cell is marked removed so a
 * thread that found it before the sweep looks again. Cells are locked in the order of their
 * {@link #order} number, so two plans never deadlock.
 */
final class CounterCell {

    private static final AtomicLong CREATED = new AtomicLong();
    /** Counts of a field nothing was counted in yet: never written. */
    private static final long[] NOTHING = new long[Dimension.WINDOWED.size()];

    final ReentrantLock lock = new ReentrantLock();
    /** Where the cell comes in the order every plan locks its cells in: unique, fixed. */
    final long order = CREATED.incrementAndGet();
    boolean removed;
    long end = Long.MIN_VALUE;
    private GroupWindow window = GroupWindow.NONE;
    private Map<String, long[]> current = new HashMap<>(4);
    private Map<String, long[]> previous = new HashMap<>(4);
    /** Request id to lease end. */
    private final Map<String, Long> slots = new HashMap<>(4);
    /** No slot's lease ends before this: until then no slot needs to be looked at to expire it. */
    private long earliestLease = Long.MAX_VALUE;
    /** A budget period's reservations, created on first use. */
    private MoneyReservations reservations;
    /**
     * The decisions not yet settled whose plan starts with this cell's group: request id to what
     * each applied (the window end of each of its groups, then when the record may go).
     */
    private Map<String, long[]> decisions;
    /** When each pool of a work-conserving model last asked for capacity, by index in {@link #activityPools}; kept across windows. */
    private long[] asked;
    private List<String> activityPools = List.of();
    private long lastAsked = Long.MIN_VALUE;

    /* Figures of a field: one per windowed dimension (at its index), then money. */
    /** Micro-dollars spent (settled). */
    static final int MICROS = Dimension.WINDOWED.size();
    /** Micro-dollars reserved by decisions not yet settled. */
    static final int RESERVED = MICROS + 1;
    private static final int FIGURES = RESERVED + 1;

    /** Starts the window {@code now} lies in when the live one has ended (see AdmissionStore). */
    void roll(long now, GroupWindow window) {
        this.window = window;
        if (window.isPeriod()) {
            end = window.periodEnd();
            return;
        }
        if (now < end) {
            return;
        }
        long length = window.millis();
        Map<String, long[]> ended = current;
        current = previous;
        current.clear();
        previous = ended;
        if (window.sliding() && now < end + length) {
            end += length;
        } else {
            previous.clear();
            end = now + length;
        }
    }

    /**
     * The counts of a field for a decision at {@code now}. They are the cell's own arrays, not
     * copies: read them only while holding the lock, before anything is applied.
     */
    GroupCounts read(String field, long now) {
        long[] live = current.get(field);
        long[] before = previous.get(field);
        return new GroupCounts(live == null ? NOTHING : live, before == null ? NOTHING : before,
                live == null ? 0 : live[MICROS], live == null ? 0 : live[RESERVED], inFlight(now), Math.max(0, end - now), end);
    }

    /** The slots in flight at {@code now}; slots whose lease ended are dropped. */
    int inFlight(long now) {
        if (now >= earliestLease) {
            slots.values().removeIf(leaseEnd -> leaseEnd <= now);
            earliestLease = Long.MAX_VALUE;
            for (long leaseEnd : slots.values()) {
                earliestLease = Math.min(earliestLease, leaseEnd);
            }
        }
        return slots.size();
    }

    /** Holds a parallel slot for the request until {@code leaseEnd}. */
    void holdSlot(String requestId, long leaseEnd) {
        slots.put(requestId, leaseEnd);
        earliestLease = Math.min(earliestLease, leaseEnd);
    }

    /** Gives the request's slot back, if it holds one. */
    void releaseSlot(String requestId) {
        if (!slots.isEmpty()) {
            slots.remove(requestId);
        }
    }

    /**
     * The count of every windowed dimension of each field, in order, of the live window (index 0)
     * and the previous one (index 1), as stored: not rolled to any time.
     */
    long[][] stored(List<String> fields) {
        int dimensions = Dimension.WINDOWED.size();
        long[][] stored = new long[2][dimensions * fields.size()];
        for (int i = 0; i < fields.size(); i++) {
            long[] live = current.get(fields.get(i));
            long[] before = previous.get(fields.get(i));
            if (live != null) {
                System.arraycopy(live, 0, stored[0], dimensions * i, dimensions);
            }
            if (before != null) {
                System.arraycopy(before, 0, stored[1], dimensions * i, dimensions);
            }
        }
        return stored;
    }

    /** {@code {spent, reserved}} micro-dollars of a field now, leaving out reservations whose lease ended. */
    long[] money(String field, long now) {
        long[] live = current.get(field);
        if (live == null) {
            return new long[2];
        }
        long expired = reservations == null ? 0 : reservations.expiredBy(now);
        return new long[] {live[MICROS], Math.max(0, live[RESERVED] - expired)};
    }

    /** The live window's counts of a field, created on first use. */
    long[] live(String field) {
        return current.computeIfAbsent(field, f -> new long[FIGURES]);
    }

    /** The counts of the window that ends at {@code windowEnd}, or {@code null} if it no longer counts. */
    long[] countsOf(String field, long windowEnd, long now, GroupWindow window) {
        if (window.isPeriod()) {
            return live(field);
        }
        long length = window.millis();
        if (windowEnd == end && (now < end || window.sliding() && now < end + length)) {
            return live(field);
        }
        if (window.sliding() && windowEnd == end - length && now < end) {
            return previous.computeIfAbsent(field, f -> new long[FIGURES]);
        }
        return null;
    }

    /** Reserves {@code micros} of the live period for the request until {@code leaseEnd}. */
    void reserve(String field, String requestId, long micros, long leaseEnd) {
        if (reservations == null) {
            reservations = new MoneyReservations();
        }
        reservations.hold(requestId, micros, leaseEnd);
        add(live(field), RESERVED, micros);
    }

    /** Gives the request's reservation back; returns it, 0 when it expired or was never held. */
    long release(String field, String requestId) {
        long micros = reservations == null ? 0 : reservations.release(requestId);
        add(live(field), RESERVED, -micros);
        return micros;
    }

    /** Gives back every reservation whose lease ended at {@code now}. */
    void expireReservations(String field, long now) {
        if (reservations != null && !reservations.isEmpty()) {
            add(live(field), RESERVED, -reservations.sweep(now));
        }
    }

    /** Notes that the pool at {@code index} of the model's {@code pools} asked for capacity at {@code now}. */
    void asked(List<String> pools, int index, long now) {
        alignActivity(pools);
        asked[index] = now;
        lastAsked = Math.max(lastAsked, now);
    }

    /** Whether the pool at {@code index} of the model's {@code pools} asked within the last {@code window} milliseconds. */
    boolean askedWithin(List<String> pools, int index, long now, long window) {
        alignActivity(pools);
        return asked[index] > now - window;
    }

    /**
     * Lines the activity up with the model's pools as the policy lists them: a policy reloaded with
     * other pools keeps each remaining pool's time by name.
     */
    private void alignActivity(List<String> pools) {
        if (pools == activityPools) {
            return;
        }
        if (asked == null || !pools.equals(activityPools)) {
            long[] aligned = new long[pools.size()];
            Arrays.fill(aligned, Long.MIN_VALUE);
            for (int k = 0; asked != null && k < aligned.length; k++) {
                int before = activityPools.indexOf(pools.get(k));
                if (before >= 0) {
                    aligned[k] = asked[before];
                }
            }
            asked = aligned;
        }
        activityPools = pools;
    }

    /**
     * Keeps what a decision applied: the window end of each of its groups, then until when the
     * record is kept (settled or not).
     */
    void recordDecision(String requestId, long[] applied) {
        if (decisions == null) {
            decisions = new HashMap<>(4);
        }
        decisions.put(requestId, applied);
    }

    /** Forgets a decision; returns its record ({@link #recordDecision}), {@code null} without one. */
    long[] forgetDecision(String requestId) {
        return decisions == null ? null : decisions.remove(requestId);
    }

    int pendingDecisions() {
        return decisions == null ? 0 : decisions.size();
    }

    /**
     * Whether nothing in the cell counts any more at {@code now}: no counter, slot, decision record
     * or active pool. Records kept past {@code now} are dropped first.
     */
    boolean expired(long now) {
        if (decisions != null) {
            decisions.values().removeIf(applied -> applied[applied.length - 1] <= now);
        }
        long countsUntil = window.sliding() ? end + window.millis() : end;
        boolean activity = asked != null && now - lastAsked < window.millis();
        return now >= countsUntil && inFlight(now) == 0 && pendingDecisions() == 0 && !activity;
    }

    /** Adds to one counter, never below zero, never above the cap. */
    static void add(long[] counts, int index, long amount) {
        counts[index] = Math.max(0, dev.llmratelimit.engine.Saturating.add(counts[index], amount));
    }
}
