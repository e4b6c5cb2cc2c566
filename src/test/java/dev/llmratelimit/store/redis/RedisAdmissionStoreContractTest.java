package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.concurrent.atomic.AtomicInteger;

/** The shared store contract against a real redis-server; windows roll by the server's real time. */
class RedisAdmissionStoreContractTest extends RedisStoreContract {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final AtomicInteger STORES = new AtomicInteger();

    /** Each store gets its own key prefix, so it starts empty. */
    @Override
    protected AdmissionStore createStore() {
        return RedisAdmissionStore.using(REDIS.client(), "contract" + STORES.incrementAndGet() + ":");
    }
}
