package dev.llmratelimit.outbound;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** How a caller waits for its place in the queue: a thread sleeping, or a future completed later. */
public interface Waiter {

    void sleep(long millis) throws InterruptedException;

    /** Completes after {@code millis} without holding a thread meanwhile. */
    CompletableFuture<Void> after(long millis);

    /** Real time: {@link Thread#sleep}, and the JDK's shared delay scheduler for futures. */
    Waiter SYSTEM = new Waiter() {
        @Override
        public void sleep(long millis) throws InterruptedException {
            Thread.sleep(millis);
        }

        @Override
        public CompletableFuture<Void> after(long millis) {
            return CompletableFuture.runAsync(() -> { },
                    CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS));
        }
    };
}
