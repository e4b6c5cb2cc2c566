package dev.llmratelimit.testsupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Runs tasks on threads of their own, released at the same moment, and waits for all of them. */
public final class StartTogether {

    private final List<Callable<?>> tasks = new ArrayList<>();

    public StartTogether add(Callable<?> task) {
        tasks.add(task);
        return this;
    }

    /** Starts every task at once; rethrows the first failure; gives up after {@code timeout} per task. */
    public void run(Duration timeout) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(tasks.size());
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (Callable<?> task : tasks) {
                running.add(threads.submit(() -> {
                    start.await();
                    return task.call();
                }));
            }
            start.countDown();
            for (Future<?> future : running) {
                future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
    }
}
