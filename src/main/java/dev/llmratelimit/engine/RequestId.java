package dev.llmratelimit.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

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

    static {
        try {
            KEPT = MethodHandles.lookup().findVarHandle(RequestId.class, "kept", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String prefix;
    private final long number;
    private String value;
    @SuppressWarnings("unused") // through KEPT
    private volatile Object kept;
    private volatile RequestId[] parts;

    private RequestId(String prefix, long number, String value) {
        this.prefix = prefix;
        this.number = number;
        this.value = value;
    }

    /** The id a caller or a test gave. */
    public static RequestId of(String value) {
        return new RequestId(null, 0, java.util.Objects.requireNonNull(value, "request id"));
    }

    /** The {@code number}th id of an instance: {@code prefix:number} in base 36, built only when asked for. */
    static RequestId numbered(String prefix, long number) {
        return new RequestId(prefix, number, null);
    }

    public String value() {
        String built = value;
        if (built == null) {
            built = prefix + ':' + Long.toString(number, 36);
            value = built;
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
            known[index] = new RequestId(prefix, number, value);
        }
        return known[index];
    }

    /** Keeps what an in-JVM store's decision applied, until {@link #take}. */
    public void keep(Object applied) {
        KEPT.setRelease(this, applied);   // read by take's getAndSet, which acquires
    }

    /** What {@link #keep} kept, once: every later call (and one without a decision kept) gets {@code null}. */
    public Object take() {
        return KEPT.getAndSet(this, (Object) null);
    }

    /**
     * Ids are equal only to themselves (a decision is one object, wherever its plan goes); the hash
     * is cheap and never builds the name.
     */
    @Override
    public int hashCode() {
        return prefix == null ? value.hashCode() : Long.hashCode(number * 0x9E3779B97F4A7C15L);
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
