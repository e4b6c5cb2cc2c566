package dev.llmratelimit.store.redis;

import dev.llmratelimit.store.CircuitBreaker;
import dev.llmratelimit.store.CircuitBreakerSettings;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.connection.ConnectionManager;
import org.redisson.connection.MasterSlaveEntry;

import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

/**
 * The circuits of one Redis deployment, each fed only by the calls it carries: one for a standalone
 * or sentinel Redis; in a cluster one per master, the master that owns a key's hash slot as the
 * client sees the topology now. A dead master's circuit then keeps only the calls of its own slots
 * from the store, and after a failover its slots go to the new master's circuit. Until the client
 * knows the topology (lazy start) calls go through the deployment's circuit.
 */
public final class NodeCircuits {

    private final CircuitBreakerSettings settings;
    private final Clock clock;
    /** Where the client routes a slot; {@code null} for a deployment with one writable node. */
    private final ConnectionManager connections;
    private final CircuitBreaker deployment;
    private final ConcurrentMap<String, CircuitBreaker> byNode = new ConcurrentHashMap<>();

    private NodeCircuits(CircuitBreakerSettings settings, Clock clock, ConnectionManager connections) {
        this.settings = settings;
        this.clock = clock;
        this.connections = connections;
        this.deployment = new CircuitBreaker(settings, clock, "Redis");
    }

    public static NodeCircuits of(RedissonClient client, CircuitBreakerSettings settings, Clock clock) {
        ConnectionManager connections = client.getConfig().isClusterConfig() && client instanceof Redisson redisson
                ? redisson.getCommandExecutor().getConnectionManager() : null;
        return new NodeCircuits(settings, clock, connections);
    }

    /** Runs one call on {@code key}'s node through that node's circuit. */
    <T> T call(String key, Supplier<T> operation) {
        return of(key).call(operation);
    }

    private CircuitBreaker of(String key) {
        if (connections == null) {
            return deployment;
        }
        MasterSlaveEntry entry = connections.getWriteEntry(connections.calcSlot(key));
        if (entry == null || entry.getClient() == null) {
            return deployment;
        }
        InetSocketAddress address = entry.getClient().getAddr();
        String node = address.getHostString() + ":" + address.getPort();
        CircuitBreaker circuit = byNode.get(node);
        return circuit != null ? circuit
                : byNode.computeIfAbsent(node, n -> new CircuitBreaker(settings, clock, "Redis node " + n));
    }

    /** Every circuit by name ({@code redis}, or {@code redis <host:port>} per cluster node), read live. */
    public Supplier<Map<String, CircuitBreaker>> view() {
        return () -> {
            Map<String, CircuitBreaker> all = new TreeMap<>();
            all.put("redis", deployment);
            byNode.forEach((node, circuit) -> all.put("redis " + node, circuit));
            return Collections.unmodifiableMap(all);
        };
    }

    /** Whether any circuit keeps calls from the store now. */
    public boolean anyOpen() {
        return deployment.isOpen() || byNode.values().stream().anyMatch(CircuitBreaker::isOpen);
    }
}
