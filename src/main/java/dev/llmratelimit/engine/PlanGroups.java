package dev.llmratelimit.engine;

import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/**
 * The counter groups of a plan, in check order, with what every decision asks of them worked out
 * once: where the model group is, whether a pool shares work. A list of a configured model's pool
 * (and of a caller with it) is built once per policy and used by every request; a store compiles
 * what it needs for a list's counters (the memory store: cell references and lock order; Redis: each
 * script call's groups and keys) once and keeps it on the list ({@link #compiled}), each store its
 * own (a plan may meet two: the shared store and, while it is out, this instance's own). Lists that
 * differ only in increments or limits (a request's token estimate, a work-conserving share as
 * decided, a budget's worst case) hold the same counters and share what was compiled; so do two
 * such lists joined one after the other ({@link #concat}): a caller's and a pool's groups followed
 * by the identity's budgets are compiled once, not per request.
 */
public final class PlanGroups extends AbstractList<CounterGroup> implements RandomAccess {

    /** What stores compiled for the counters of one or more lists, and the lists joined after them. */
    private static final class Compiled {
        /** Stores compiling one list's counters at once: beyond, the last is replaced. */
        private static final int MAX_OWNERS = 4;
        /** Lists joined after one list ({@link #concat}): beyond, the joined list's counters are compiled per request. */
        private static final int MAX_JOINS = 16;
        private static final Object[] NONE = {};

        /** Pairs of a store and what it compiled. */
        private volatile Object[] byOwner = NONE;
        /** Pairs of the {@code Compiled} of a list this one's list was joined after, and that of the joined list. */
        private volatile Object[] joins = NONE;

        Object of(Object owner) {
            return valueOf(byOwner, owner);
        }

        synchronized void keep(Object owner, Object value) {
            byOwner = withValue(byOwner, owner, value, MAX_OWNERS);
        }

        /** The {@code Compiled} of a list of {@code first}'s counters followed by this one's. */
        Compiled after(Compiled first) {
            Object joined = valueOf(joins, first);
            if (joined != null) {
                return (Compiled) joined;
            }
            synchronized (this) {
                joined = valueOf(joins, first);
                if (joined == null) {
                    joined = new Compiled();
                    if (joins.length < 2 * MAX_JOINS) {
                        joins = withValue(joins, first, joined, MAX_JOINS);
                    }
                }
                return (Compiled) joined;
            }
        }

        private static Object valueOf(Object[] pairs, Object key) {
            for (int i = 0; i < pairs.length; i += 2) {
                if (pairs[i] == key) {
                    return pairs[i + 1];
                }
            }
            return null;
        }

        /** The pairs with {@code key}'s value set: replaced, added, or (when full) put in the last pair's place. */
        private static Object[] withValue(Object[] pairs, Object key, Object value, int max) {
            int at = 0;
            while (at < pairs.length && pairs[at] != key) {
                at += 2;
            }
            Object[] next = java.util.Arrays.copyOf(pairs, at < pairs.length ? pairs.length
                    : Math.min(pairs.length + 2, 2 * max));
            at = Math.min(at, next.length - 2);
            next[at] = key;
            next[at + 1] = value;
            return next;
        }
    }

    private final CounterGroup[] groups;
    private final int modelIndex;
    private final int[] modelGroups;
    private final PoolSharing sharing;
    /** The lowest saturation at which a pool of the list is held to its share; infinite (never) without one. */
    private final double strictFrom;
    private final boolean hasBudgets;
    private final long acquiring;
    private final boolean reservesTokens;
    private final Compiled compiled;
    /** The two lists {@link #concat} joined into this one, {@code null} for a list not joined. */
    private final PlanGroups head;
    private final PlanGroups tail;
    /** The last list decided among a set of active pools ({@link #among}), reused while the set stays. */
    private volatile Among lastAmong;

    /** A list as decided among the pools active, with the key of their set. */
    private record Among(long key, PlanGroups groups) {
    }

    private PlanGroups(CounterGroup[] groups, Compiled compiled) {
        this(groups, compiled, null, null);
    }

    private PlanGroups(CounterGroup[] groups, Compiled compiled, PlanGroups head, PlanGroups tail) {
        if (groups.length == 0) {
            throw new IllegalArgumentException("A plan has at least one group");
        }
        this.groups = groups;
        this.compiled = compiled;
        this.head = head;
        this.tail = tail;
        int[] models = new int[groups.length];
        int modelCount = 0;
        PoolSharing firstSharing = null;
        boolean budgets = false;
        long acquiring = 0;
        boolean reserving = false;
        double strictAt = Double.POSITIVE_INFINITY;
        for (int i = 0; i < groups.length; i++) {
            CounterGroup group = groups[i];
            if (group.kind() == GroupKind.POOL && group.enforcement().mode() == Enforcement.Mode.WHEN_SATURATED) {
                strictAt = Math.min(strictAt, group.enforcement().threshold());
            }
            if (group.kind() == GroupKind.MODEL) {
                models[modelCount++] = i;
            }
            if (firstSharing == null) {
                firstSharing = group.sharing();
            }
            budgets |= group.kind() == GroupKind.BUDGET;
            if (group.increments().slot() || group.countsMoney()) {
                acquiring |= bit(i);
            }
            reserving |= group.window().counts() && group.increments().reservesTokens();
        }
        this.modelGroups = java.util.Arrays.copyOf(models, modelCount);
        this.modelIndex = modelCount == 0 ? -1 : models[0];
        this.sharing = firstSharing;
        this.strictFrom = strictAt;
        this.hasBudgets = budgets;
        this.acquiring = acquiring;
        this.reservesTokens = reserving;
    }

    /** These groups as a plan holds them: the list itself when it already is one. */
    public static PlanGroups of(List<CounterGroup> groups) {
        return groups instanceof PlanGroups built ? built : new PlanGroups(groups.toArray(new CounterGroup[0]), new Compiled());
    }

    /**
     * {@code first} followed by {@code then}. When both are plan lists, what stores compile for the
     * result is shared with every other list joined from lists of the same counters, and the result
     * remembers its two parts ({@link #head}, {@link #tail}).
     */
    public static PlanGroups concat(List<CounterGroup> first, List<CounterGroup> then) {
        CounterGroup[] all = new CounterGroup[first.size() + then.size()];
        for (int i = 0; i < all.length; i++) {
            all[i] = i < first.size() ? first.get(i) : then.get(i - first.size());
        }
        if (first instanceof PlanGroups head && then instanceof PlanGroups tail) {
            return new PlanGroups(all, tail.compiled.after(head.compiled), head, tail);
        }
        return new PlanGroups(all, new Compiled());
    }

    /** The first of the two lists {@link #concat} joined into this one; {@code null} for a list not joined. */
    public PlanGroups head() {
        return head;
    }

    /** The second of the two lists {@link #concat} joined into this one; {@code null} for a list not joined. */
    public PlanGroups tail() {
        return tail;
    }

    /**
     * The same counters with group {@code i} replaced by {@code replaced[i]} where that is not
     * {@code null}: each replacement must name the same counters (kind, id, member, window) and hold
     * the same kinds of them (slots, money, a sharing), since what a store compiled is kept.
     */
    public PlanGroups replacing(CounterGroup[] replaced) {
        CounterGroup[] next = groups.clone();
        for (int i = 0; i < next.length; i++) {
            if (replaced[i] != null) {
                next[i] = replaced[i];
            }
        }
        if (head == null) {
            return new PlanGroups(next, compiled);
        }
        return new PlanGroups(next, compiled, head.replacing(replaced, 0), tail.replacing(replaced, head.size()));
    }

    /** This list with the replacements from {@code replaced[from]} on; itself when there are none. */
    private PlanGroups replacing(CounterGroup[] replaced, int from) {
        for (int i = 0; i < groups.length; i++) {
            if (replaced[from + i] != null) {
                return replacing(java.util.Arrays.copyOfRange(replaced, from, from + groups.length));
            }
        }
        return this;
    }

    /**
     * These groups as decided: each work-conserving pool group held to its share among the pools
     * active ({@code active[i]} for group {@code i}, {@code null} for the other groups). The same
     * list comes back while the same pools are active.
     */
    public PlanGroups among(boolean[][] active) {
        long key = activeKey(active);
        Among last = lastAmong;
        if (key >= 0 && last != null && last.key == key) {
            return last.groups;
        }
        CounterGroup[] decided = new CounterGroup[groups.length];
        for (int i = 0; i < decided.length; i++) {
            decided[i] = groups[i].sharing() == null ? null : groups[i].among(active[i]);
        }
        PlanGroups among = replacing(decided);
        if (key >= 0) {
            lastAmong = new Among(key, among);
        }
        return among;
    }

    /** The active pools of every sharing group as one number; -1 when they do not fit 63 bits. */
    private static long activeKey(boolean[][] active) {
        long key = 0;
        int bits = 0;
        for (boolean[] pools : active) {
            if (pools == null) {
                continue;
            }
            if (bits + pools.length > 63) {
                return -1;
            }
            for (boolean on : pools) {
                key = key << 1 | (on ? 1 : 0);
            }
            bits += pools.length;
        }
        return key;
    }

    @Override
    public CounterGroup get(int index) {
        return groups[index];
    }

    @Override
    public int size() {
        return groups.length;
    }

    /** The index of the model group (the source of saturation), -1 without one. */
    public int modelIndex() {
        return modelIndex;
    }

    /** The indexes of the model groups (one per window length), in order. */
    public int[] modelGroups() {
        return modelGroups;
    }

    /** Whether a group is a work-conserving pool, whose limits depend on the pools active. */
    public boolean sharesWork() {
        return sharing != null;
    }

    /** The sharing of the first work-conserving pool group, {@code null} without one. */
    public PoolSharing sharing() {
        return sharing;
    }

    /** Whether a pool of the list is held to its share at this saturation of the model. */
    public boolean strictAt(double saturation) {
        return saturation >= strictFrom;
    }

    public boolean hasBudgets() {
        return hasBudgets;
    }

    /** The groups that take something a settlement must give back, as a mask of {@link #bit}s. */
    public long acquiring() {
        return acquiring;
    }

    /** Group {@code index}'s bit in a mask of groups: groups past the 63rd share the last bit. */
    public static long bit(int index) {
        return 1L << Math.min(index, 63);
    }

    /** Whether a group with a window adds tokens before the call ({@code token-admission=reserve}). */
    public boolean reservesTokens() {
        return reservesTokens;
    }

    /** What {@code store} compiled for these counters, {@code null} before. */
    public Object compiled(Object store) {
        return compiled.of(store);
    }

    /** Keeps what {@code store} compiled for these counters. */
    public void compile(Object store, Object value) {
        compiled.keep(store, value);
    }
}
