package dev.llmratelimit.store.memory;

import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.GroupCounts;
import dev.llmratelimit.engine.GroupKind;
import dev.llmratelimit.engine.GroupWindow;
import dev.llmratelimit.engine.Increments;
import dev.llmratelimit.engine.Limits;
import dev.llmratelimit.engine.ModelCounters;
import dev.llmratelimit.engine.ModelGroups;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.PlanGroups;
import dev.llmratelimit.engine.PlanRule;
import dev.llmratelimit.engine.PoolSharing;
import dev.llmratelimit.engine.RequestId;
import dev.llmratelimit.engine.Settlement;
import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.engine.WindowCounters;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import static dev.llmratelimit.engine.PlanGroups.bit;

/**
 * Counters in this JVM's memory, executing a whole plan under the locks of the cells it touches,
 * taken in one fixed order (so two plans never deadlock; a model's windows share one lock, and so
 * do the caller cells first counted with that model). What a
 * decision applied (the window end of each group) is kept on its
 * {@link dev.llmratelimit.engine.RequestId} until it is settled or its lease ends: taking that record
 * is what makes settlement exactly-once, so a decision is settled through the {@code Plan} (the id
 * object) it was decided with. A settlement locks only the cells whose counters it changes (an abort
 * of a request that reserved nothing and holds no slot locks none). Cells whose windows ended and
 * that hold no slot are dropped every {@value #SWEEP_EVERY} decisions, so the counters are bounded by
 * the models and the callers active in one window; a list of groups the engine keeps (a model pool's,
 * a cached caller's) keeps its compiled cells until its next decision finds one dropped.
 */
public final class MemoryAdmissionStore implements AdmissionStore {

    static final int SWEEP_EVERY = 4096;
    /** An array, not the list: every settlement walks it, and the list's iterator showed in its profile. */
    private static final Dimension[] TOKEN_DIMENSIONS = Dimension.TOKEN_DIMENSIONS.toArray(Dimension[]::new);

    private final Clock clock;
    private final ConcurrentMap<CellKey, CounterCell> cells = new ConcurrentHashMap<>();
    /** The lock every window of a configured model shares, by model name (bounded by the models configured). */
    private final ConcurrentMap<String, CellLock> modelLocks = new ConcurrentHashMap<>();
    /** Request ids cancelled, or counted without an answer, before their decision ran: to lease end. */
    private final ConcurrentMap<String, Long> cancelled = new ConcurrentHashMap<>();
    /**
     * Decisions until the next sweep. Counted without synchronisation on purpose: under contention a
     * decrement may be lost and the sweep come a little later, which costs nothing but memory for
     * a moment, while an atomic counter would cost every decision a fenced write.
     */
    private int untilSweep = SWEEP_EVERY;

    /** Which cell a group lives in: a pool lives in its model's. */
    private record CellKey(char kind, String id, String member, String period) {
        static CellKey of(CounterGroup group) {
            return group.kind() == GroupKind.POOL
                    ? new CellKey(GroupKind.MODEL.code(), group.id(), "", group.window().tag())
                    : new CellKey(group.kind().code(), group.id(), group.member(),
                            group.window().isPeriod() ? group.window().periodId() : group.window().tag());
        }
    }

    public MemoryAdmissionStore(Clock clock) {
        this.clock = clock;
    }

    public MemoryAdmissionStore() {
        this(Clock.systemUTC());
    }

    /** Its counters end with the runtime that owns this store. */
    @Override
    public boolean outlivesThisJvm() {
        return false;
    }

    @Override
    public Verdict decide(Plan plan) {
        return decide(plan, clock, clock.millis());
    }

    /** Decides at {@code now} when the engine's clock is this store's, else at this store's time. */
    @Override
    public Verdict decide(Plan plan, Clock engineClock, long engineNow) {
        long now = engineClock == clock ? engineNow : clock.millis();
        if (--untilSweep <= 0) {
            sweep();
        }
        if (!cancelled.isEmpty() && cancelled.remove(plan.requestId()) != null) {
            throw StoreUnavailableException.notRun("The decision was cancelled before it ran");
        }
        PlanGroups groups = plan.groups();
        Cells cells = lock(groups, ALL_GROUPS);
        CounterCell[] held = cells.byGroup();
        CounterCell.Field[] fields = cells.fields();
        try {
            for (int i = 0; i < held.length; i++) {
                CounterCell cell = held[i];
                CounterGroup group = groups.get(i);
                if (i > 0 && cell == held[i - 1] && group.window() == groups.get(i - 1).window() && !group.countsMoney()) {
                    continue;   // a pool right after its model, in the same cell and window: rolled and read already
                }
                if (group.window().counts()) {
                    cell.roll(now, group.window());
                }
                if (group.countsMoney()) {
                    cell.expireReservations(fields[i], now);
                }
                cell.readAt(now);
            }
            GroupCounts[] counts = fields;   // each field is a view of its counters as read
            Verdict verdict;
            if (plan.sharesWork()) {
                verdict = PlanRule.decide(plan.among(cells.activePools(groups, now)), counts);
                if (plan.askedModel(verdict)) {
                    noteAsked(groups, held, now);
                }
            } else {
                verdict = PlanRule.decide(plan, counts);
            }
            if (verdict.admitted()) {
                long[] applied = new long[counts.length + RECORD_EXTRA];
                long leaseEnd = now + plan.leaseMillis();
                for (int i = 0; i < counts.length; i++) {
                    apply(groups.get(i), held[i], fields[i], plan, leaseEnd);
                    applied[i] = held[i].end;
                }
                applied[counts.length + SLOT_LEASE_END] = leaseEnd;
                applied[counts.length + KEPT_UNTIL] = keptUntil(plan, applied, now);
                plan.id().keep(applied);
            }
            return verdict;
        } finally {
            cells.unlock(ALL_GROUPS);
        }
    }

    private static void noteAsked(List<CounterGroup> groups, CounterCell[] held, long now) {
        for (int i = 0; i < groups.size(); i++) {
            PoolSharing sharing = groups.get(i).sharing();
            if (sharing != null) {
                held[i].asked(sharing.pools(), sharing.self(), now);
            }
        }
    }

    /**
     * The lease, and as long as a window the decision reserved tokens in still counts: a call that
     * outlives its lease is then still settled against its reservation (as in {@code admit.lua}).
     */
    private static long keptUntil(Plan plan, long[] windowEnds, long now) {
        long until = now + plan.leaseMillis();
        if (!plan.groups().reservesTokens()) {
            return until;
        }
        for (int i = 0; i < plan.groups().size(); i++) {
            GroupWindow window = plan.group(i).window();
            if (window.counts() && !window.isPeriod() && plan.group(i).increments().reservesTokens()) {
                until = Math.max(until, windowEnds[i] + (window.sliding() ? window.millis() : 0));
            }
        }
        return until;
    }

    private static void apply(CounterGroup group, CounterCell cell, CounterCell.Field field, Plan plan, long leaseEnd) {
        Increments add = group.increments();
        if (group.window().counts()) {
            long[] live = field.live;
            Limits limits = group.limits();
            for (int k = 0; k < limits.limitedCount(); k++) {
                int index = limits.limitedIndex(k);
                long amount = add.ofIndex(index);
                if (amount != 0) {
                    CounterCell.add(live, index, amount);
                }
            }
            if (add.micros() > 0) {
                cell.reserve(field, plan.id(), add.micros(), leaseEnd);
            }
        }
        if (add.slot()) {
            cell.holdSlot(leaseEnd);
        }
    }

    @Override
    public void settle(Plan plan, Settlement settlement) {
        settle(plan, settlement, clock, clock.millis());
    }

    /** Settles at {@code now} when the engine's clock is this store's, else at this store's time. */
    @Override
    public void settle(Plan plan, Settlement settlement, Clock engineClock, long engineNow) {
        long now = engineClock == clock ? engineNow : clock.millis();
        long[] applied = takeRecord(plan, now);
        long changing = applied == null ? ALL_GROUPS : changing(plan.groups(), settlement);
        if (changing != 0) {
            settle(plan, settlement, now, applied, changing);
        }
    }

    /** Settles the groups in {@code changing} under their locks; {@code applied} is the decision's record, if taken. */
    private void settle(Plan plan, Settlement settlement, long now, long[] applied, long changing) {
        PlanGroups groups = plan.groups();
        Cells cells = lock(groups, changing);
        CounterCell[] held = cells.byGroup();
        CounterCell.Field[] fields = cells.fields();
        try {
            if (applied == null) {
                applied = takeRecord(plan, now);         // a decision that ran meanwhile under these locks
            }
            if (applied == null && settlement.cancel()) {
                cancelled.put(plan.requestId(), now + plan.leaseMillis());
                return;
            }
            if (applied == null && (settlement.unanswered() ? cancelled.containsKey(plan.requestId()) : !settlement.late())) {
                return;                          // already finished
            }
            if (applied == null && settlement.unanswered()) {
                cancelled.put(plan.requestId(), now + plan.leaseMillis());   // counted now: a later decision obeys
            }
            for (int i = 0; i < groups.size(); i++) {
                if ((changing & bit(i)) == 0) {
                    continue;
                }
                CounterGroup group = groups.get(i);
                CounterCell cell = held[i];
                if (applied != null && group.increments().slot()) {
                    cell.releaseSlot(applied[groups.size() + SLOT_LEASE_END]);   // without the record it was given back, or its lease ended
                }
                if (group.countsMoney()) {
                    settleMoney(group, cell, fields[i], plan.id(), settlement, now);
                } else if (group.window().counts()) {
                    settleCounts(group, cell, fields[i], applied != null, applied == null ? 0 : applied[i], settlement, now);
                }
            }
        } finally {
            cells.unlock(changing);
        }
    }

    /*
     * The record a decision keeps on its request id: per group the end of the window it counted in,
     * then these two.
     */
    /** When the decision's slots' leases end. */
    private static final int SLOT_LEASE_END = 0;
    /** Until when the record is kept. */
    private static final int KEPT_UNTIL = 1;
    private static final int RECORD_EXTRA = 2;

    /** The decision's record, once; {@code null} without one or when it was to be kept no longer than {@code now}. */
    private static long[] takeRecord(Plan plan, long now) {
        long[] applied = plan.id().take(long[].class);
        return applied == null || applied[applied.length - RECORD_EXTRA + KEPT_UNTIL] <= now ? null : applied;
    }

    /**
     * The groups whose counters settling a recorded decision changes, as a mask of {@link PlanGroups#bit}s:
     * those with a slot to give back or money, and those whose count of a token dimension the
     * usage replaces by something else than it reserved. Only their cells are locked; an abort of
     * a request that reserved nothing and holds no slot locks none.
     */
    private static long changing(PlanGroups groups, Settlement settlement) {
        if (settlement.cancel()) {
            return ALL_GROUPS;
        }
        if (!groups.reservesTokens() && usesNoTokens(settlement)) {
            return groups.acquiring();
        }
        long changing = 0;
        for (int i = 0; i < groups.size(); i++) {
            if (changes(groups.get(i), settlement)) {
                changing |= bit(i);
            }
        }
        return changing;
    }

    private static boolean changes(CounterGroup group, Settlement settlement) {
        if (group.increments().slot() || group.countsMoney()) {
            return true;
        }
        if (group.window().counts()) {
            Limits limits = group.limits();
            for (int k = 0; k < limits.limitedCount(); k++) {
                Dimension dimension = limits.limited(k);
                if (dimension.isTokens() && settlement.delta(dimension, group.increments().of(dimension)) != 0) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether the settlement records no token of any kind (zero, or the reservation kept). */
    private static boolean usesNoTokens(Settlement settlement) {
        for (Dimension dimension : TOKEN_DIMENSIONS) {
            long used = settlement.used(dimension);
            if (used != 0 && used != Settlement.KEEP) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param recorded  whether the store has a record of the decision: without one (its lease ended)
     *                  the usage goes to the live window
     * @param windowEnd the end of the window the decision counted in (when recorded)
     */
    private static void settleCounts(CounterGroup group, CounterCell cell, CounterCell.Field field, boolean recorded,
                                     long windowEnd, Settlement settlement, long now) {
        Increments added = group.increments();
        if (!recorded && settlement.unanswered()) {
            long[] live = liveCounts(cell, field, now, group);
            Limits limits = group.limits();
            for (int k = 0; k < limits.limitedCount(); k++) {
                Dimension dimension = limits.limited(k);
                long used = settlement.used(dimension);
                CounterCell.add(live, dimension.index(), settles(group, dimension) && used != Settlement.KEEP
                        ? used : added.of(dimension));
            }
            return;
        }
        long[] counted = recorded ? cell.countsOf(field, windowEnd, now, group.window()) : null;
        Limits limits = group.limits();
        for (int k = 0; k < limits.limitedCount(); k++) {
            Dimension dimension = limits.limited(k);
            long applied = recorded ? added.of(dimension) : 0;
            if (settlement.cancel()) {
                if (counted != null) {
                    CounterCell.add(counted, dimension.index(), -applied);
                }
            } else if (settles(group, dimension)) {
                long delta = settlement.delta(dimension, applied);
                long[] target = applied > 0 ? counted : liveCounts(cell, field, now, group);
                if (target != null && delta != 0) {
                    CounterCell.add(target, dimension.index(), delta);
                }
            }
        }
    }

    /** Whether settling replaces the group's reservation of a dimension by the usage: tokens it limits. */
    private static boolean settles(CounterGroup group, Dimension dimension) {
        return dimension.isTokens() && group.limits().limits(dimension);
    }

    /**
     * A budget period: the request's reservation is given back unless its lease already gave it
     * back, and (unless cancelled) the cost is spent, once: a settlement after the lease ended
     * neither refunds twice nor charges twice. {@link Settlement#KEEP} spends the worst case.
     */
    private static void settleMoney(CounterGroup group, CounterCell cell, CounterCell.Field field, RequestId id,
                                    Settlement settlement, long now) {
        cell.release(field, id);
        if (!settlement.cancel()) {
            long spent = settlement.micros() == Settlement.KEEP ? group.increments().micros() : settlement.micros();
            CounterCell.add(liveCounts(cell, field, now, group), CounterCell.MICROS, spent);
        }
    }

    private static long[] liveCounts(CounterCell cell, CounterCell.Field field, long now, CounterGroup group) {
        cell.rollForSettlement(now, group.window());
        return field.live;
    }

    @Override
    public ModelCounters snapshot(ModelGroups model) {
        long now = clock.millis();
        List<WindowCounters> windows = new ArrayList<>(model.windows().size());
        for (ModelGroups.Window window : model.windows()) {
            windows.add(snapshot(window, now));
        }
        return new ModelCounters(windows, model.sharesWork() ? active(model, now) : null);
    }

    /** Which pools asked within the configured window. */
    private boolean[] active(ModelGroups model, long now) {
        boolean[] active = new boolean[model.pools().size()];
        CounterCell cell = cells.get(CellKey.of(model.model()));
        if (cell == null) {
            return active;
        }
        List<String> pools = model.pools().get(0).sharing().pools();
        cell.lock.lock();
        try {
            for (int p = 0; p < active.length; p++) {
                active[p] = cell.askedWithin(pools, p, now, model.model().window().millis());
            }
        } finally {
            cell.lock.unlock();
        }
        return active;
    }

    private WindowCounters snapshot(ModelGroups.Window window, long now) {
        CounterCell cell = cells.get(CellKey.of(window.model()));
        if (cell == null) {
            return WindowCounters.idle(window.pools().size());
        }
        List<String> fields = new ArrayList<>(1 + window.pools().size());
        fields.add("");
        window.pools().forEach(pool -> fields.add(pool.member()));
        cell.lock.lock();
        try {
            long[][] stored = cell.stored(fields);
            return WindowCounters.read(window.model().window(), cell.end, now, stored[0], stored[1]);
        } finally {
            cell.lock.unlock();
        }
    }

    @Override
    public long[][] budgets(List<CounterGroup> groups) {
        long[][] held = new long[groups.size()][];
        long now = clock.millis();
        for (int i = 0; i < held.length; i++) {
            CounterCell cell = cells.get(CellKey.of(groups.get(i)));
            if (cell == null) {
                held[i] = new long[2];
                continue;
            }
            cell.lock.lock();
            try {
                held[i] = cell.money(field(groups.get(i)), now);
            } finally {
                cell.lock.unlock();
            }
        }
        return held;
    }

    private static String field(CounterGroup group) {
        return group.kind() == GroupKind.POOL ? group.member() : "";
    }

    /** Every group of a plan, as a mask of {@link PlanGroups#bit}s. */
    private static final long ALL_GROUPS = -1L;

    /**
     * The cells of a list of groups as this store compiled them: one per group, the locks they
     * need each once in lock order, and where each group's lock comes in that order.
     */
    private record Cells(CounterCell[] byGroup, CounterCell.Field[] fields,
                         CellLock[] lockOrder, int[] lockIndex, boolean[][] active) {

        /**
         * Per work-conserving pool group, which of its model's pools asked within the window
         * ({@code null} for other groups). The arrays are this compilation's own, refilled by every
         * decision under all its locks: valid until they are released.
         */
        boolean[][] activePools(List<CounterGroup> groups, long now) {
            for (int i = 0; i < active.length; i++) {
                if (active[i] != null) {
                    List<String> pools = groups.get(i).sharing().pools();
                    for (int k = 0; k < active[i].length; k++) {
                        active[i][k] = byGroup[i].askedWithin(pools, k, now, groups.get(i).window().millis());
                    }
                }
            }
            return active;
        }

        /** The locks of the groups in {@code groups}, as a mask over the lock order. */
        private long locksOf(long groups) {
            if (groups == ALL_GROUPS) {
                return ALL_GROUPS;
            }
            if (lockOrder.length == 1) {
                return groups == 0 ? 0 : 1;     // the usual case: a model, its pools and its callers share one lock
            }
            long locks = 0;
            for (int i = 0; i < lockIndex.length; i++) {
                if ((groups & bit(i)) != 0) {
                    locks |= bit(lockIndex[i]);
                }
            }
            return locks;
        }

        /** Locks the cells of the groups in the mask; {@code false} (nothing held) when one was swept meanwhile. */
        boolean lock(long groups) {
            long locks = locksOf(groups);
            for (int i = 0; i < lockOrder.length; i++) {
                if ((locks & bit(i)) != 0) {
                    lockOrder[i].lock();
                }
            }
            for (int i = 0; i < byGroup.length; i++) {
                if ((groups & bit(i)) != 0 && byGroup[i].removed) {
                    unlock(groups);
                    return false;
                }
            }
            return true;
        }

        void unlock(long groups) {
            long locks = locksOf(groups);
            for (int i = lockOrder.length - 1; i >= 0; i--) {
                if ((locks & bit(i)) != 0) {
                    lockOrder[i].unlock();
                }
            }
        }
    }

    /**
     * Locks the cells of the groups in the mask, their locks in ascending {@link CellLock#order}
     * (each once). The cells are looked up once per list of groups and kept on it; a cell swept since is
     * looked up again.
     */
    private Cells lock(PlanGroups groups, long mask) {
        if (groups.compiled(this) instanceof Cells known && known.lock(mask)) {
            return known;
        }
        while (true) {
            Cells cells = cellsOf(groups);
            if (cells.lock(ALL_GROUPS)) {
                for (int i = 0; i < cells.fields.length; i++) {
                    cells.fields[i] = cells.byGroup[i].field(field(groups.get(i)));   // under the lock
                }
                groups.compile(this, cells);
                if (mask != ALL_GROUPS) {
                    cells.unlock(ALL_GROUPS);
                    if (!cells.lock(mask)) {
                        continue;
                    }
                }
                return cells;
            }
        }
    }

    /**
     * The cells of the groups: a pool group lives in the cell of the model group before it. A caller
     * cell made for this list takes the lock of the list's model (else of its last caller cell already
     * kept, else a new one its new caller cells share), so a request of one model and its callers
     * takes one lock, not one per scope and window. A cell keeps its lock for life: sharing costs no
     * correctness, only waits between requests that would rarely run at once (a lock is held for a
     * fraction of a microsecond, a model serves thousands of requests a second at most).
     */
    private Cells cellsOf(PlanGroups groups) {
        int n = groups.size();
        CounterCell[] byGroup = new CounterCell[n];
        int model = groups.modelIndex();
        CellLock callerLock = model < 0 ? null : modelLock(groups.get(model));
        for (int i = 0; i < n; i++) {
            CounterGroup group = groups.get(i);
            byGroup[i] = group.kind() == GroupKind.POOL ? poolCell(groups, i, byGroup) : cells.get(CellKey.of(group));
            if (model < 0 && byGroup[i] != null) {
                callerLock = byGroup[i].lock;      // no model: every group is a caller's
            }
        }
        for (int i = 0; i < n; i++) {
            if (byGroup[i] == null) {
                CounterGroup group = groups.get(i);
                if (group.kind() == GroupKind.POOL && (byGroup[i] = poolCell(groups, i, byGroup)) != null) {
                    continue;                            // its model's cell, made just before
                }
                CellLock lock = ofModel(group) ? modelLock(group)
                        : callerLock == null ? (callerLock = new CellLock()) : callerLock;
                byGroup[i] = cells.computeIfAbsent(CellKey.of(group), k -> new CounterCell(lock));
            }
        }
        CellLock[] distinct = Arrays.stream(byGroup).map(cell -> cell.lock).distinct()
                .sorted(Comparator.comparingLong(lock -> lock.order)).toArray(CellLock[]::new);
        int[] lockIndex = new int[n];
        for (int i = 0; i < n; i++) {
            lockIndex[i] = Arrays.asList(distinct).indexOf(byGroup[i].lock);
        }
        boolean[][] active = new boolean[n][];
        for (int i = 0; i < n; i++) {
            PoolSharing sharing = groups.get(i).sharing();
            active[i] = sharing == null ? null : new boolean[sharing.pools().size()];
        }
        return new Cells(byGroup, new CounterCell.Field[n], distinct, lockIndex, active);
    }

    private CellLock modelLock(CounterGroup group) {
        return modelLocks.computeIfAbsent(group.id(), model -> new CellLock());
    }

    private static boolean ofModel(CounterGroup group) {
        return group.kind() == GroupKind.MODEL || group.kind() == GroupKind.POOL;
    }

    /** The cell of the model group before a pool group in the list (its model's window). */
    private static CounterCell poolCell(List<CounterGroup> groups, int index, CounterCell[] found) {
        CounterGroup group = groups.get(index);
        for (int j = index - 1; j >= 0; j--) {
            CounterGroup model = groups.get(j);
            if (model.kind() == GroupKind.MODEL && model.id().equals(group.id())
                    && model.window().tag().equals(group.window().tag())) {
                return found[j];
            }
        }
        return null;
    }

    private void sweep() {
        untilSweep = SWEEP_EVERY;
        long now = clock.millis();
        cancelled.values().removeIf(leaseEnd -> leaseEnd <= now);
        cells.entrySet().removeIf(entry -> {
            CounterCell cell = entry.getValue();
            if (!cell.lock.tryLock()) {
                return false;
            }
            try {
                if (cell.expired(now)) {
                    cell.removed = true;
                }
                return cell.removed;
            } finally {
                cell.lock.unlock();
            }
        });
    }

    /** Cells kept, for tests of the memory bound. */
    int size() {
        return cells.size();
    }
}
