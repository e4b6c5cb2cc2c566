package dev.llmratelimit.store.memory;

import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.GroupCounts;
import dev.llmratelimit.engine.GroupWindow;
import dev.llmratelimit.engine.RequestId;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The counters of one window holder (a model with its pools, a caller scope, a budget period): the
 * live and the previous window's counts per field (the model's own is {@code ""}, a pool's its
 * name) and the parallel slots in flight. Guarded by its lock (a model's windows share one); a
 * swept cell is marked removed so a thread that found it before the sweep looks again.
 */
final class CounterCell {

    /**
     * The counts of one field: the live window's (or period's) and the previous window's. As
     * {@link GroupCounts} it is the view a decision reads, as of the cell's last {@link CounterCell#readAt}:
     * valid only under the cell's lock, before anything is applied.
     */
    static final class Field implements GroupCounts {
        private final CounterCell cell;
        long[] live = new long[FIGURES];
        long[] previous = new long[FIGURES];

        private Field(CounterCell cell) {
            this.cell = cell;
        }

        @Override
        public long[] current() {
            return live;
        }

        @Override
        public long[] previous() {
            return previous;
        }

        @Override
        public long micros() {
            return live[MICROS];
        }

        @Override
        public long reservedMicros() {
            return live[RESERVED];
        }

        @Override
        public long inFlight() {
            return cell.inFlight(cell.readAt);
        }

        @Override
        public long remainingMillis() {
            return cell.end <= cell.readAt ? 0 : cell.end - cell.readAt;   // a cell never rolled has no end
        }

        @Override
        public long windowEnd() {
            return cell.end;
        }

        private void roll(boolean keepEnded) {
            long[] ended = live;
            live = previous;
            Arrays.fill(live, 0);
            previous = ended;
            if (!keepEnded) {
                Arrays.fill(previous, 0);
            }
        }
    }

    final CellLock lock;
    boolean removed;
    long end = Long.MIN_VALUE;
    /** When the last decision read the cell: the time its fields' views answer for. */
    private long readAt;
    /** The length of the live window comes from this window (a decision's, or a settlement's while provisional). */
    private GroupWindow window = GroupWindow.NONE;
    /** Whether a settlement started the live window, so that its length is provisional (see {@link #rollForSettlement}). */
    private boolean startedBySettlement;
    private final Map<String, Field> fields = new HashMap<>(4);
    /**
     * The lease ends of the slots in flight, the first {@link #slotCount} entries, in no order: a
     * slot is given back by its lease end (two slots that end together are interchangeable), and
     * only by the settlement that took the decision's record, so each is given back once.
     */
    private long[] slotLeases = NO_SLOTS;
    private int slotCount;
    /** No slot's lease ends before this: until then no slot needs to be looked at to expire it. */
    private long earliestLease = Long.MAX_VALUE;
    /** A budget period's reservations, created on first use. */
    private MoneyReservations reservations;
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
    private static final long[] NO_SLOTS = {};

    CounterCell(CellLock lock) {
        this.lock = lock;
    }

    /**
     * For a decision: starts the window {@code now} lies in when the live one has ended (see
     * AdmissionStore). A live window a settlement started first takes this decision's length,
     * keeping its start.
     */
    void roll(long now, GroupWindow window) {
        if (this.window != window) {      // written only when it changes: a reference store on every decision costs a barrier
            if (startedBySettlement && !window.isPeriod()) {
                end += window.millis() - this.window.millis();
            }
            this.window = window;
        }
        if (startedBySettlement) {
            startedBySettlement = false;
        }
        advance(now, window);
    }

    /**
     * For a settlement that records into the live window: starts one when the live one has ended,
     * as a decision would, but of a length that is only provisional. The settlement may come from a
     * request decided before a reload changed the window: the next decision gives the window its
     * own length, keeping its start (docs/configuration-sources.md: what a window that no decision
     * reaches within the old length does).
     */
    void rollForSettlement(long now, GroupWindow window) {
        boolean starts = !window.isPeriod() && now >= end;
        if (starts && this.window != window) {
            this.window = window;
        }
        advance(now, window);
        if (starts) {
            startedBySettlement = true;
        }
    }

    private void advance(long now, GroupWindow window) {
        if (window.isPeriod()) {
            end = window.periodEnd();
            return;
        }
        if (now < end) {
            return;
        }
        long length = window.millis();
        boolean adjacent = window.sliding() && now < end + length;
        for (Field field : fields.values()) {
            field.roll(adjacent);
        }
        end = adjacent ? end + length : now + length;
    }

    /** A field's counts, created on first use; a field stays as long as its cell. Only under the lock. */
    Field field(String name) {
        return fields.computeIfAbsent(name, f -> new Field(this));
    }

    /**
     * Reads the cell for a decision at {@code now}: from here its fields, as {@link GroupCounts},
     * answer for that time. They are views of the cell's own arrays, not copies: read them only
     * while holding the lock, before anything is applied.
     */
    void readAt(long now) {
        readAt = now;
    }

    /** The slots in flight at {@code now}; slots whose lease ended are dropped. */
    int inFlight(long now) {
        if (now >= earliestLease) {
            int kept = 0;
            long earliest = Long.MAX_VALUE;
            for (int i = 0; i < slotCount; i++) {
                long leaseEnd = slotLeases[i];
                if (leaseEnd > now) {
                    slotLeases[kept++] = leaseEnd;
                    earliest = Math.min(earliest, leaseEnd);
                }
            }
            slotCount = kept;
            earliestLease = earliest;
        }
        return slotCount;
    }

    /** Holds a parallel slot until {@code leaseEnd}. */
    void holdSlot(long leaseEnd) {
        if (slotCount == slotLeases.length) {
            slotLeases = Arrays.copyOf(slotLeases, Math.max(4, 2 * slotCount));
        }
        slotLeases[slotCount++] = leaseEnd;
        earliestLease = Math.min(earliestLease, leaseEnd);
    }

    /** Gives back a slot held until {@code leaseEnd}; none if its lease ended and it was dropped already. */
    void releaseSlot(long leaseEnd) {
        for (int i = slotCount - 1; i >= 0; i--) {
            if (slotLeases[i] == leaseEnd) {
                slotLeases[i] = slotLeases[--slotCount];
                return;
            }
        }
    }

    /**
     * The count of every windowed dimension of each field, in order, of the live window (index 0)
     * and the previous one (index 1), as stored: not rolled to any time.
     */
    long[][] stored(List<String> names) {
        int dimensions = Dimension.WINDOWED.size();
        long[][] stored = new long[2][dimensions * names.size()];
        for (int i = 0; i < names.size(); i++) {
            Field field = fields.get(names.get(i));
            if (field != null) {
                System.arraycopy(field.live, 0, stored[0], dimensions * i, dimensions);
                System.arraycopy(field.previous, 0, stored[1], dimensions * i, dimensions);
            }
        }
        return stored;
    }

    /** {@code {spent, reserved}} micro-dollars of a field now, leaving out reservations whose lease ended. */
    long[] money(String name, long now) {
        Field field = fields.get(name);
        if (field == null) {
            return new long[2];
        }
        long[] live = field.live;
        long expired = reservations == null ? 0 : reservations.expiredBy(now);
        return new long[] {live[MICROS], Math.max(0, live[RESERVED] - expired)};
    }

    /** The counts of the window that ends at {@code windowEnd}, or {@code null} if it no longer counts. */
    long[] countsOf(Field field, long windowEnd, long now, GroupWindow window) {
        if (window.isPeriod()) {
            return field.live;
        }
        long length = window.millis();
        if (windowEnd == end && (now < end || window.sliding() && now < end + length)) {
            return field.live;
        }
        if (window.sliding() && windowEnd == end - length && now < end) {
            return field.previous;
        }
        return null;
    }

    /** Reserves {@code micros} of the live period for the request until {@code leaseEnd}. */
    void reserve(Field field, RequestId id, long micros, long leaseEnd) {
        if (reservations == null) {
            reservations = new MoneyReservations();
        }
        reservations.hold(id, micros, leaseEnd);
        add(field.live, RESERVED, micros);
    }

    /** Gives the request's reservation back; returns it, 0 when it expired or was never held. */
    long release(Field field, RequestId id) {
        long micros = reservations == null ? 0 : reservations.release(id);
        add(field.live, RESERVED, -micros);
        return micros;
    }

    /** Gives back every reservation whose lease ended at {@code now}. */
    void expireReservations(Field field, long now) {
        if (reservations != null && !reservations.isEmpty()) {
            add(field.live, RESERVED, -reservations.sweep(now));
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

    /** Whether nothing in the cell counts any more at {@code now}: no counter, slot or active pool. */
    boolean expired(long now) {
        long countsUntil = window.sliding() ? end + window.millis() : end;
        boolean activity = asked != null && now - lastAsked < window.millis();
        return now >= countsUntil && inFlight(now) == 0 && !activity;
    }

    /** Adds to one counter, never below zero, never above the cap. */
    static void add(long[] counts, int index, long amount) {
        counts[index] = Math.max(0, dev.llmratelimit.engine.Saturating.add(counts[index], amount));
    }
}
