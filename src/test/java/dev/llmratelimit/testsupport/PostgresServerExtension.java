package dev.llmratelimit.testsupport;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * One real PostgreSQL server per test class, its budget tables dropped before each test, stopped
 * and deleted after the class: {@code @RegisterExtension static final PostgresServerExtension PG = new PostgresServerExtension();}
 * A test that stopped the server finds it running again at the next test.
 */
public final class PostgresServerExtension implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {

    private PostgresServer server;

    @Override
    public void beforeAll(ExtensionContext context) {
        server = PostgresServer.startNew();
    }

    @Override
    public void beforeEach(ExtensionContext context) throws SQLException {
        server.start();
        try (Connection connection = server.connect(); Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA public CASCADE");
            statement.execute("CREATE SCHEMA public");
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        server.close();
    }

    public PostgresServer server() {
        return server;
    }
}
