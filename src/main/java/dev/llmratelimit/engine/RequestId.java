package dev.llmratelimit.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Names one decision. Stores that name decisions outside this JVM (Redis markers, database rows,
 * compensations) use its {@link #value()}, built on first use; a store in this JVM keeps what the
 * decision applied on the id itself ({@link #keep}, {@link #take}), so it needs no table of
 * decisions and settling finds the record without a lookup. Plans made from one plan for parts of
 * a store ({@link Plan#withGroups}) share their id; parts of a plan handed to different stores have
 * ids of their own under the same name ({@link #part}).
 */
public final class RequestId {

    private static final VarHandle KEPT;
    private static final VarHandle NAMED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            KEPT = lookup.findVarHandle(RequestId.class, "kept", Object.class);
            NAMED = lookup.findVarHandle(RequestId.class, "named", String.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The name a caller gave, {@code null} for an id of an instance. */
    private final String given;
    private final String prefix;
    /** Where an id of an instance draws its number when it is first named. */
    private final AtomicLong numbers;
    private final int hash;
    /** An instance id's name once built (through {@link #NAMED}: set once, by compare-and-set). */
    @SuppressWarnings("unused") // through NAMED
    private String named;
    @SuppressWarnings("unused") // through KEPT
    private volatile Object kept;
    private volatile RequestId[] parts;

    private RequestId(String given, String prefix, AtomicLong numbers, int hash) {
        this.given = given;
        this.prefix = prefix;
        this.numbers = numbers;
        this.hash = hash;
    }

    /** The id a caller or a test gave. */
    public static RequestId of(String value) {
        String given = java.util.Objects.requireNonNull(value, "request id");
        return new RequestId(given, null, null, given.hashCode());
    }

    /**
     * An id of an instance, named {@code prefix:number} (the number in base 36, the next of
     * {@code numbers}) only when something asks for its name (Redis, the database, a cancellation
     * before its decision ran): a decision that needs none of them costs no shared counter.
     */
    static RequestId numbered(String prefix, AtomicLong numbers) {
        return new RequestId(null, prefix, numbers, ThreadLocalRandom.current().nextInt());
    }

    public String value() {
        if (given != null) {
            return given;
        }
        String built = (String) NAMED.getAcquire(this);
        if (built == null) {
            built = prefix + ':' + Long.toString(numbers.incrementAndGet(), 36);
            if (!NAMED.compareAndSet(this, (String) null, built)) {
                built = (String) NAMED.getAcquire(this);   // another thread named it first: one name for life
            }
        }
        return built;
    }

    /**
     * The id of part {@code index} of this decision, when parts of one plan go to different stores:
     * the same name, a record of its own; the same object every time it is asked for.
     */
    public synchronized RequestId part(int index) {
        RequestId[] known = parts;
        if (known == null || known.length <= index) {
            known = known == null ? new RequestId[index + 1] : java.util.Arrays.copyOf(known, index + 1);
            parts = known;
        }
        if (known[index] == null) {
            known[index] = new RequestId(value(), null, null, hash);
        }
        return known[index];
    }

    /**
     * Keeps what a store's decision applied, until {@link #take}. Each store keeps a type of its own:
     * two stores may decide one id (a local decision during an outage after the remote one failed),
     * and neither must take the other's record.
     */
    public void keep(Object applied) {
        KEPT.setRelease(this, applied);   // read by take's compare-and-set, which acquires
    }

    /**
     * What {@link #keep} kept, once, if it is a {@code type}: every later call (and one without such
     * a record) gets {@code null}, and a record of another type stays.
     */
    public <T> T take(Class<T> type) {
        Object kept = KEPT.getAcquire(this);
        return type.isInstance(kept) && KEPT.compareAndSet(this, kept, null) ? type.cast(kept) : null;
    }

    /**
     * Ids are equal only to themselves (a decision is one object, wherever its plan goes); the hash
     * never builds the name.
     */
    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public boolean equals(Object other) {
        return this == other;
    }

    @Override
    public String toString() {
        return value();
    }
}
