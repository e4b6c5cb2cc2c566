package dev.llmratelimit.outbound;

import dev.llmratelimit.testsupport.MutableClock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;

/**
 * Waiting on a {@link MutableClock}: a blocking wait moves the clock by its length; a non-blocking one
 * completes when a test moves the clock past its end.
 */
final class ClockWaiter implements Waiter {

    private record Due(long at, long order, CompletableFuture<Void> future) {
    }

    private final MutableClock clock;
    private final PriorityQueue<Due> due = new PriorityQueue<>((a, b) ->
            a.at() != b.at() ? Long.compare(a.at(), b.at()) : Long.compare(a.order(), b.order()));
    private final List<Long> sleeps = new ArrayList<>();
    private long order;

    ClockWaiter(MutableClock clock) {
        this.clock = clock;
    }

    @Override
    public synchronized void sleep(long millis) {
        sleeps.add(millis);
        clock.advance(Duration.ofMillis(millis));
    }

    @Override
    public synchronized CompletableFuture<Void> after(long millis) {
        CompletableFuture<Void> future = new CompletableFuture<>();
        due.add(new Due(clock.millis() + millis, order++, future));
        return future;
    }

    /** Moves the clock, completing in order every wait that ends by then. */
    void advance(Duration duration) {
        long until = clock.millis() + duration.toMillis();
        while (true) {
            Due next;
            synchronized (this) {
                next = due.peek();
                if (next == null || next.at() > until) {
                    break;
                }
                due.poll();
                if (next.at() > clock.millis()) {
                    clock.advance(Duration.ofMillis(next.at() - clock.millis()));
                }
            }
            next.future().complete(null);
        }
        clock.advance(Duration.ofMillis(until - clock.millis()));
    }

    synchronized List<Long> sleeps() {
        return List.copyOf(sleeps);
    }
}
