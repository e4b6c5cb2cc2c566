package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.CallerLimitStore;
import dev.llmratelimit.store.CallerLimitStoreContract;
import dev.llmratelimit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.concurrent.atomic.AtomicInteger;

/** The caller store contract against a real redis-server; windows and leases end by its real time. */
class RedisCallerLimitStoreContractTest extends CallerLimitStoreContract {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final AtomicInteger STORES = new AtomicInteger();

    @Override
    protected CallerLimitStore createStore() {
        return RedisCallerLimitStore.using(REDIS.client(), "callers" + STORES.incrementAndGet() + ":");
    }

    @Override
    protected long windowMillis() {
        return 1000;
    }

    @Override
    protected long leaseMillis() {
        return 400;
    }

    @Override
    protected void pass(long millis) throws InterruptedException {
        Thread.sleep(millis + 20);
    }
}
