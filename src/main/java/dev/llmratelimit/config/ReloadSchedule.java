package dev.llmratelimit.config;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** Runs a reload on one daemon thread every {@code llm.ratelimit.reload-interval}, until closed. */
final class ReloadSchedule implements AutoCloseable {

    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "llm-ratelimit-config-reload");
        thread.setDaemon(true);
        return thread;
    });

    /** @param reload must not throw: an exception would end the schedule */
    ReloadSchedule(Duration interval, Runnable reload) {
        long millis = Math.max(1, interval.toMillis());
        executor.scheduleWithFixedDelay(reload, millis, millis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
