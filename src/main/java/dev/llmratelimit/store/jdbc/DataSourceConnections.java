package dev.llmratelimit.store.jdbc;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;

/** Connections of a {@link DataSource}, typically the container's pool looked up by JNDI name: closing one returns it. */
final class DataSourceConnections implements ConnectionSource {

    private final DataSource dataSource;

    DataSourceConnections(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    static DataSourceConnections lookup(String jndiName) throws NamingException {
        return new DataSourceConnections((DataSource) new InitialContext().lookup(jndiName));
    }

    @Override
    public Connection acquire() throws SQLException {
        return dataSource.getConnection();
    }

    @Override
    public void release(Connection connection, boolean broken) {
        try {
            connection.close();
        } catch (SQLException e) {
            // the container's pool deals with a connection it cannot take back
        }
    }
}
