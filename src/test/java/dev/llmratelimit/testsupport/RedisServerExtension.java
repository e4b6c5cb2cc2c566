package dev.llmratelimit.testsupport;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real Redis server per test class, emptied before each test and killed after the class:
 * {@code @RegisterExtension static final RedisServerExtension REDIS = new RedisServerExtension();}
 * A test that stopped the server finds it running again at the next test.
 */
public final class RedisServerExtension implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {

    private RedisServer server;

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
        server.close();
    }

    public RedisServer server() {
        return server;
    }
}
