package dev.llmratelimit.testsupport;

import dev.llmratelimit.store.redis.RedissonClientFactory;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.redisson.api.RedissonClient;

/**
 * One real Redis server per test class, emptied before each test and killed after the class:
 * {@code @RegisterExtension static final RedisServerExtension REDIS = new RedisServerExtension();}
 * A test that stopped the server finds it running again at the next test.
 */
public final class RedisServerExtension implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {

    private RedisServer server;
    private RedissonClient client;

    @Override
    public void beforeAll(ExtensionContext context) {
        server = RedisServer.startNew();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        server.start();
        server.call("FLUSHALL");
        server.call("SCRIPT", "FLUSH");
        server.call("CONFIG", "RESETSTAT");
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (client != null) {
            client.shutdown();
        }
        server.close();
    }

    public RedisServer server() {
        return server;
    }

    /** A Redisson client on this server with the tests' generous timeouts, shared by the test class. */
    public synchronized RedissonClient client() {
        if (client == null) {
            client = RedissonClientFactory.create(RedisTestSettings.forAddress(server.address()));
        }
        return client;
    }
}
