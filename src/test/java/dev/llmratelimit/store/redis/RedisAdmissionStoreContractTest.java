package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.store.AdmissionStoreContract;
import dev.llmratelimit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** The shared store contract against a real redis-server; windows roll by the server's real time. */
class RedisAdmissionStoreContractTest extends AdmissionStoreContract {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final AtomicInteger STORES = new AtomicInteger();

    /** Each store gets its own key prefix, so it starts empty. */
    @Override
    protected AdmissionStore createStore() {
        return RedisAdmissionStore.using(REDIS.client(), "contract" + STORES.incrementAndGet() + ":");
    }

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
