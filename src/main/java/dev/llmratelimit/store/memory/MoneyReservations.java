package dev.llmratelimit.store.memory;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * The money reservations one budget counter holds, by request id, each until its lease ends
 * (docs/budgets.md: a reservation never settled expires with {@code parallel-lease}). Exactly one of
 * {@link #release} and {@link #sweep} gives a reservation back. Guarded by its cell's lock.
 */
final class MoneyReservations {

    private record Held(long leaseEnd, String requestId, long micros) implements Comparable<Held> {
        @Override
        public int compareTo(Held other) {
            int byEnd = Long.compare(leaseEnd, other.leaseEnd);
            return byEnd != 0 ? byEnd : requestId.compareTo(other.requestId);
        }
    }

    private final Map<String, Held> byRequest = new HashMap<>(4);
    private final TreeSet<Held> byLeaseEnd = new TreeSet<>();

    void hold(String requestId, long micros, long leaseEnd) {
        Held held = new Held(leaseEnd, requestId, micros);
        Held before = byRequest.put(requestId, held);
        if (before != null) {
            byLeaseEnd.remove(before);
        }
        byLeaseEnd.add(held);
    }

    /** The request's reservation, given back now: its micro-dollars, 0 if it expired or was never held. */
    long release(String requestId) {
        Held held = byRequest.remove(requestId);
        if (held == null) {
            return 0;
        }
        byLeaseEnd.remove(held);
        return held.micros();
    }

    /** Drops every reservation whose lease ended at {@code now}; returns their micro-dollars. */
    long sweep(long now) {
        long expired = 0;
        while (!byLeaseEnd.isEmpty() && byLeaseEnd.first().leaseEnd() <= now) {
            Held held = byLeaseEnd.pollFirst();
            byRequest.remove(held.requestId());
            expired += held.micros();
        }
        return expired;
    }

    /** The micro-dollars of reservations whose lease ended at {@code now}, left in place (the next sweep gives them back). */
    long expiredBy(long now) {
        long expired = 0;
        for (Held held : byLeaseEnd) {
            if (held.leaseEnd() > now) {
                break;
            }
            expired += held.micros();
        }
        return expired;
    }

    boolean isEmpty() {
        return byRequest.isEmpty();
    }
}
