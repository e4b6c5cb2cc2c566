package dev.llmratelimit.store.jdbc;

import dev.llmratelimit.policy.Durations;
import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.policy.PolicyParser;

import javax.naming.NamingException;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code llm.ratelimit.budget.jdbc.*}: a {@code datasource} JNDI name (the container's pool), or a
 * {@code url} with {@code user}, {@code password} and {@code pool-size} (default 4) for the store's
 * own pool; {@code timeout} (default 2s) bounds each connection's network wait; {@code table-prefix}
 * (default {@code llm_budget_}) names the tables.
 */
public record JdbcBudgetSettings(String datasource, String url, String user, String password, int poolSize,
                                 int timeoutMillis, String tablePrefix) {

    public static final String PREFIX = PolicyParser.PREFIX + "budget.jdbc.";
    private static final Pattern TABLE_PREFIX = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,40}");

    public static JdbcBudgetSettings parse(Map<String, String> properties) {
        String datasource = blankToNull(properties.get(PREFIX + "datasource"));
        String url = blankToNull(properties.get(PREFIX + "url"));
        if ((datasource == null) == (url == null)) {
            throw new PolicyException(PREFIX + "datasource", String.valueOf(datasource),
                    "budget.store=jdbc needs exactly one of " + PREFIX + "datasource (a JNDI name) or " + PREFIX + "url");
        }
        String poolText = properties.getOrDefault(PREFIX + "pool-size", "4");
        int pool;
        try {
            pool = Integer.parseInt(poolText.trim());
        } catch (NumberFormatException e) {
            pool = 0;
        }
        if (pool < 1 || pool > 100) {
            throw new PolicyException(PREFIX + "pool-size", poolText, "expected a whole number from 1 to 100");
        }
        String timeoutText = properties.getOrDefault(PREFIX + "timeout", "2s");
        long timeout = Durations.parse(PREFIX + "timeout", timeoutText).toMillis();
        if (timeout < 1 || timeout > 600_000) {
            throw new PolicyException(PREFIX + "timeout", timeoutText, "expected a duration from 1ms to 10m");
        }
        String prefix = properties.getOrDefault(PREFIX + "table-prefix", "llm_budget_").trim();
        if (!TABLE_PREFIX.matcher(prefix).matches()) {
            throw new PolicyException(PREFIX + "table-prefix", prefix, "expected letters, digits and _ (a SQL name), at most 41");
        }
        return new JdbcBudgetSettings(datasource, url, properties.get(PREFIX + "user"), properties.get(PREFIX + "password"),
                pool, (int) timeout, prefix);
    }

    ConnectionSource connections() {
        if (url != null) {
            return new PooledConnections(url, user, password, poolSize, timeoutMillis);
        }
        try {
            return DataSourceConnections.lookup(datasource);
        } catch (NamingException | ClassCastException e) {
            throw new PolicyException(PREFIX + "datasource", datasource, "no DataSource under this JNDI name: " + e);
        }
    }

    private static String blankToNull(String text) {
        return text == null || text.isBlank() ? null : text.trim();
    }

    /** The password is never printed. */
    @Override
    public String toString() {
        return "JdbcBudgetSettings[" + (url != null ? "url" : "datasource " + datasource) + ", pool=" + poolSize
                + ", timeout=" + timeoutMillis + "ms, prefix=" + tablePrefix + "]";
    }
}
