package dev.llmratelimit.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Redis Cluster of real processes on loopback ports: 3 masters with one replica each, built with
 * plain CLUSTER commands (no redis-cli needed). Masters own equal slot ranges in order.
 */
public final class RedisCluster implements AutoCloseable {

    public static final int SLOTS = 16384;
    private static final int MASTERS = 3;
    private static final List<String> CLUSTER_ARGS = List.of("--cluster-enabled", "yes",
            "--cluster-node-timeout", "2000", "--repl-diskless-sync-delay", "0");

    private final List<RedisServer> nodes = new ArrayList<>();

    private RedisCluster() {
    }

    public static RedisCluster start() {
        RedisCluster cluster = new RedisCluster();
        try {
            cluster.build();
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    private void build() {
        for (int i = 0; i < 2 * MASTERS; i++) {
            RedisServer node = new RedisServer(RedisServer.freePort(), CLUSTER_ARGS);
            nodes.add(node);
            node.start();
            node.call("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
        }
        for (RedisServer node : nodes.subList(1, nodes.size())) {
            nodes.get(0).call("CLUSTER", "MEET", "127.0.0.1", Integer.toString(node.port()));
        }
        for (int m = 0; m < MASTERS; m++) {
            List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            for (int slot = firstSlot(m); slot < firstSlot(m + 1); slot++) {
                command.add(Integer.toString(slot));
            }
            nodes.get(m).call(command.toArray(String[]::new));
        }
        await("all nodes to meet", () -> nodes.stream().allMatch(n -> ((String) n.call("CLUSTER", "NODES")).lines().count() == nodes.size()));
        for (int m = 0; m < MASTERS; m++) {
            String masterId = (String) nodes.get(m).call("CLUSTER", "MYID");
            nodes.get(MASTERS + m).call("CLUSTER", "REPLICATE", masterId);
        }
        await("cluster_state:ok and replicas in sync", () -> nodes.stream().allMatch(n -> info(n, "CLUSTER", "INFO").contains("cluster_state:ok"))
                && nodes.subList(MASTERS, nodes.size()).stream().allMatch(n -> info(n, "INFO", "replication").contains("master_link_status:up")));
    }

    private static int firstSlot(int master) {
        return master * SLOTS / MASTERS;
    }

    public List<RedisServer> nodes() {
        return nodes;
    }

    /** The node that currently serves a slot as master. */
    public RedisServer masterOf(int slot) {
        return nodes.stream().filter(RedisServer::isRunning)
                .filter(n -> info(n, "INFO", "replication").contains("role:master"))
                .filter(n -> ownsSlot(n, slot))
                .findFirst().orElseThrow(() -> new IllegalStateException("No master serves slot " + slot));
    }

    public int slotOf(String key) {
        RedisServer anyRunning = nodes.stream().filter(RedisServer::isRunning).findFirst().orElseThrow();
        return ((Long) anyRunning.call("CLUSTER", "KEYSLOT", key)).intValue();
    }

    /** Waits until every running node reports the cluster healthy and some node serves the slot as master. */
    public void awaitHealthy(int slot) {
        await("the cluster to recover", () -> nodes.stream().filter(RedisServer::isRunning)
                .allMatch(n -> info(n, "CLUSTER", "INFO").contains("cluster_state:ok"))
                && nodes.stream().filter(RedisServer::isRunning).anyMatch(n ->
                        info(n, "INFO", "replication").contains("role:master") && ownsSlot(n, slot)));
    }

    @SuppressWarnings("unchecked")
    private static boolean ownsSlot(RedisServer node, int slot) {
        for (Object range : (List<Object>) node.call("CLUSTER", "SLOTS")) {
            List<Object> fields = (List<Object>) range;
            List<Object> master = (List<Object>) fields.get(2);
            if ((Long) fields.get(0) <= slot && slot <= (Long) fields.get(1) && (Long) master.get(1) == node.port()) {
                return true;
            }
        }
        return false;
    }

    private static String info(RedisServer node, String... command) {
        try {
            return (String) node.call(command);
        } catch (RuntimeException e) {
            return "";
        }
    }

    private static void await(String what, java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Timed out waiting for " + what);
            }
            RedisServer.sleep(50);
        }
    }

    @Override
    public void close() {
        nodes.forEach(RedisServer::close);
    }

    /**
     * A Redisson YAML configuration for this cluster (its masters as seed nodes), written under
     * {@code target/}, with a timeout generous enough for a loaded machine and no retries.
     */
    public Path writeRedissonConfig() throws IOException {
        Path yaml = Files.createTempFile(Path.of("target"), "redisson-cluster", ".yaml");
        StringBuilder text = new StringBuilder("clusterServersConfig:\n  timeout: 3000\n  retryAttempts: 0\n  nodeAddresses:\n");
        nodes().subList(0, 3).forEach(n -> text.append("  - \"").append(n.address()).append("\"\n"));
        Files.writeString(yaml, text);
        return yaml;
    }
}
