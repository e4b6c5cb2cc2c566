package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.CounterStore;
import dev.llmratelimit.store.CounterStoreContract;
import dev.llmratelimit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** The shared store contract against a real redis-server; windows roll by the server's real time. */
class RedisCounterStoreContractTest extends CounterStoreContract {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static RedissonClient client;
    private static final AtomicInteger STORES = new AtomicInteger();

    @BeforeAll
    static void connect() {
        // The contract is about semantics: on a loaded machine 64 threads can exceed the 250 ms default
        // timeout, and a timed-out recording is dropped (fail-open), which is not what these tests check.
        client = RedissonClientFactory.create(RedisStoreSettings.parse(Map.of(
                RedisStoreSettings.PREFIX + "address", REDIS.server().address(),
                RedisStoreSettings.PREFIX + "timeout", "10s")));
    }

    @AfterAll
    static void disconnect() {
        client.shutdown();
    }

    /** Each store gets its own key prefix, so it starts empty. */
    @Override
    protected CounterStore createStore() {
        return RedisCounterStore.using(client, "contract" + STORES.incrementAndGet() + ":");
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
