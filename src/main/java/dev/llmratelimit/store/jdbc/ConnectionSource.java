package dev.llmratelimit.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/** Where the JDBC budget store gets its connections: the container's pool (JNDI) or its own small pool. */
interface ConnectionSource extends AutoCloseable {

    Connection acquire() throws SQLException;

    /** Hands a connection back; a {@code broken} one is closed instead of reused. */
    void release(Connection connection, boolean broken);

    @Override
    default void close() {
    }
}
