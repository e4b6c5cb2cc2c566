package dev.llmratelimit.store.redis;

import dev.llmratelimit.store.AdmissionStoreContract;

import java.time.Duration;

/** The shared store contract on real redis-server processes: windows and leases pass in the server's real time. */
abstract class RedisStoreContract extends AdmissionStoreContract {

    @Override
    protected Duration lease() {
        return Duration.ofMillis(1500);
    }

    @Override
    protected String rollingWindow() {
        return "2s";
    }

    @Override
    protected void passWindow(Duration window) throws InterruptedException {
        Thread.sleep(window.toMillis() + 20);
    }

    @Override
    protected void pass(Duration duration) throws InterruptedException {
        Thread.sleep(duration.toMillis());
    }
}
