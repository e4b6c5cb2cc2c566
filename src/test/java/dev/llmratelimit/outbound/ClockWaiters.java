package dev.llmratelimit.outbound;

import dev.llmratelimit.testsupport.MutableClock;

/** Waiters for tests in other packages. */
public final class ClockWaiters {

    private ClockWaiters() {
    }

    /** Every wait moves the clock by its length at once. */
    public static Waiter moving(MutableClock clock) {
        ClockWaiter waiter = new ClockWaiter(clock);
        return new Waiter() {
            @Override
            public void sleep(long millis) {
                waiter.sleep(millis);
            }

            @Override
            public java.util.concurrent.CompletableFuture<Void> after(long millis) {
                waiter.sleep(millis);
                return java.util.concurrent.CompletableFuture.completedFuture(null);
            }
        };
    }
}
