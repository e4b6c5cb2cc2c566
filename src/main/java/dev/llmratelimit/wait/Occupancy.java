package dev.llmratelimit.wait;

import java.util.HashMap;
import java.util.Map;

/**
 * Who is in the wait room and what they hold: waiters, the bytes of their request bodies, and the
 * waiters of each caller, each against its bound. A waiter enters only if all three still fit.
 */
final class Occupancy {

    private final WaitRoom.Capacity capacity;
    private final Map<Object, Integer> perCaller = new HashMap<>();
    private int waiters;
    private long bytes;

    Occupancy(WaitRoom.Capacity capacity) {
        this.capacity = capacity;
    }

    /** Counts the waiter in; {@code false} (and nothing counted) when it does not fit. */
    synchronized boolean enter(WaitRoom.Waiter waiter) {
        Object caller = waiter.caller();
        long held = Math.max(0, waiter.bytes());
        if (waiters >= capacity.maxWaiters() || held > capacity.maxBytes() - bytes
                || (caller != null && perCaller.getOrDefault(caller, 0) >= capacity.maxPerCaller())) {
            return false;
        }
        waiters++;
        bytes += held;
        if (caller != null) {
            perCaller.merge(caller, 1, Integer::sum);
        }
        return true;
    }

    /** Counts out a waiter that {@link #enter} counted in. */
    synchronized void leave(WaitRoom.Waiter waiter) {
        waiters--;
        bytes -= Math.max(0, waiter.bytes());
        Object caller = waiter.caller();
        if (caller != null) {
            perCaller.computeIfPresent(caller, (c, n) -> n == 1 ? null : n - 1);
        }
    }

    synchronized int waiters() {
        return waiters;
    }

    synchronized long bytes() {
        return bytes;
    }
}
