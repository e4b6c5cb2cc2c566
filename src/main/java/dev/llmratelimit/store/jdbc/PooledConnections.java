package dev.llmratelimit.store.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A small fixed-size pool over {@link DriverManager} for {@code budget.jdbc.url}: at most
 * {@code size} connections, idle ones reused, broken ones dropped and reopened on demand. A caller
 * waits at most the timeout for a free connection; every connection has that network timeout, so
 * a stalled database costs a request one timeout, not a hung thread.
 */
final class PooledConnections implements ConnectionSource {

    private final String url;
    private final Properties credentials;
    private final int timeoutMillis;
    private final Semaphore permits;
    private final BlockingQueue<Connection> idle;
    private volatile boolean closed;

    PooledConnections(String url, String user, String password, int size, int timeoutMillis) {
        this.url = url;
        this.credentials = new Properties();
        if (user != null) {
            credentials.setProperty("user", user);
        }
        if (password != null) {
            credentials.setProperty("password", password);
        }
        int seconds = Math.max(1, (timeoutMillis + 999) / 1000);
        credentials.setProperty("connectTimeout", Integer.toString(seconds));   // PostgreSQL's names; other drivers ignore them
        credentials.setProperty("loginTimeout", Integer.toString(seconds));
        this.timeoutMillis = timeoutMillis;
        this.permits = new Semaphore(size, true);
        this.idle = new ArrayBlockingQueue<>(size);
    }

    @Override
    public Connection acquire() throws SQLException {
        try {
            if (!permits.tryAcquire(timeoutMillis, TimeUnit.MILLISECONDS)) {
                throw new SQLException("No free database connection within " + timeoutMillis + " ms");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("Interrupted while waiting for a database connection", e);
        }
        try {
            Connection connection = idle.poll();
            if (connection == null) {
                connection = DriverManager.getConnection(url, credentials);
                connection.setNetworkTimeout(Runnable::run, timeoutMillis);
            }
            return connection;
        } catch (SQLException | RuntimeException e) {
            permits.release();
            throw e;
        }
    }

    @Override
    public void release(Connection connection, boolean broken) {
        try {
            if (broken || closed || !idle.offer(connection)) {
                closeQuietly(connection);
            }
        } finally {
            permits.release();
        }
    }

    @Override
    public void close() {
        closed = true;
        for (Connection connection; (connection = idle.poll()) != null; ) {
            closeQuietly(connection);
        }
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException e) {
            // already unusable
        }
    }
}
