package dev.llmratelimit.store.memory;

import dev.llmratelimit.engine.RequestId;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * The money reservations one budget counter holds, by decision (the {@link RequestId} object its plan
 * carries: no name is built for it), each until its lease ends (docs/budgets.md: a reservation never
 * settled expires with {@code parallel-lease}). Exactly one of {@link #release} and {@link #sweep}
 * gives a reservation back. Guarded by its cell's lock.
 */
final class MoneyReservations {

    /** A reservation; of two ending together the one held first comes first. */
    private record Held(long leaseEnd, long order, RequestId id, long micros) implements Comparable<Held> {
        @Override
        public int compareTo(Held other) {
            int byEnd = Long.compare(leaseEnd, other.leaseEnd);
            return byEnd != 0 ? byEnd : Long.compare(order, other.order);
        }
    }

    private final Map<RequestId, Held> byRequest = new HashMap<>(4);
    private final TreeSet<Held> byLeaseEnd = new TreeSet<>();
    private long nextOrder;

    void hold(RequestId id, long micros, long leaseEnd) {
        Held reservation = new Held(leaseEnd, nextOrder++, id, micros);
        Held before = byRequest.put(id, reservation);
        if (before != null) {
            byLeaseEnd.remove(before);
        }
        byLeaseEnd.add(reservation);
    }

    /** The decision's reservation, given back now: its micro-dollars, 0 if it expired or was never held. */
    long release(RequestId id) {
        Held reservation = byRequest.remove(id);
        if (reservation == null) {
            return 0;
        }
        byLeaseEnd.remove(reservation);
        return reservation.micros();
    }

    /** Drops every reservation whose lease ended at {@code now}; returns their micro-dollars. */
    long sweep(long now) {
        long expired = 0;
        while (!byLeaseEnd.isEmpty() && byLeaseEnd.first().leaseEnd() <= now) {
            Held reservation = byLeaseEnd.pollFirst();
            byRequest.remove(reservation.id());
            expired += reservation.micros();
        }
        return expired;
    }

    /** The micro-dollars of reservations whose lease ended at {@code now}, left in place (the next sweep gives them back). */
    long expiredBy(long now) {
        long expired = 0;
        for (Held reservation : byLeaseEnd) {
            if (reservation.leaseEnd() > now) {
                break;
            }
            expired += reservation.micros();
        }
        return expired;
    }

    boolean isEmpty() {
        return byRequest.isEmpty();
    }
}
