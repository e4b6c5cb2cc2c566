package dev.llmratelimit.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real PostgreSQL server from Debian's package ({@code /usr/lib/postgresql/<n>/bin}), with its
 * own data directory under {@code target/} and a free port; trust authentication on 127.0.0.1 only.
 * {@code initdb} and {@code postgres} refuse to run as root, so as root they run as the
 * {@code postgres} user (through {@code setpriv}, which execs: the process is the server itself);
 * where that user cannot reach {@code target/} (a checkout in a private directory), the data
 * directory goes under the system's temporary directory instead.
 */
public final class PostgresServer implements AutoCloseable {

    private static final Duration STARTUP = Duration.ofSeconds(60);

    private final Path bin;
    private final Path dataDir;
    private final int port;
    private Process process;

    private PostgresServer(Path bin, Path dataDir, int port) {
        this.bin = bin;
        this.dataDir = dataDir;
        this.port = port;
    }

    /** Whether a PostgreSQL server binary is installed ({@code .ci/run} installs one). */
    public static boolean available() {
        return findBin() != null;
    }

    public static PostgresServer startNew() {
        Path bin = findBin();
        if (bin == null) {
            throw new IllegalStateException("No PostgreSQL server under /usr/lib/postgresql (apt-get install postgresql)");
        }
        try {
            Path target = Path.of("target").toAbsolutePath();
            Files.createDirectories(target);
            Path base = serverUserReaches(target) ? target : Path.of(System.getProperty("java.io.tmpdir"));
            Path dir = Files.createTempDirectory(base, "postgres-");
            PostgresServer server = new PostgresServer(bin, dir.resolve("data"), RedisServer.freePort());
            server.initdb(dir);
            server.start();
            return server;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Path findBin() {
        Path root = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            return null;
        }
        try (var versions = Files.list(root)) {
            return versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("postgres")))
                    .sorted().reduce((a, b) -> b).orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    private static boolean root() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** Whether the server's user may enter {@code dir} (always, unless the tests run as root). */
    private static boolean serverUserReaches(Path dir) throws IOException {
        if (!root()) {
            return true;
        }
        try {
            return new ProcessBuilder(asServerUser(List.of("test", "-x", dir.toString()))).start().waitFor() == 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private void initdb(Path dir) throws IOException {
        if (root()) {
            run(List.of("chown", "-R", "postgres:postgres", dir.toString()));
        }
        run(asServerUser(List.of(bin.resolve("initdb").toString(), "-D", dataDir.toString(), "-U", "postgres",
                "--auth=trust", "-E", "UTF8", "--no-sync")), dir);
    }

    public synchronized void start() {
        if (isRunning()) {
            return;
        }
        try {
            ProcessBuilder builder = new ProcessBuilder(asServerUser(List.of(bin.resolve("postgres").toString(),
                    "-D", dataDir.toString(), "-p", Integer.toString(port), "-k", dataDir.toString(),
                    "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200", "-c", "fsync=off",
                    "-c", "synchronous_commit=off", "-c", "full_page_writes=off")))
                    .directory(dataDir.getParent().toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(dataDir.getParent().resolve("postgres.log").toFile());
            process = builder.start();
            awaitReady();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + STARTUP.toNanos();
        SQLException last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("postgres exited; see " + dataDir.getParent().resolve("postgres.log"));
            }
            try (Connection ignored = connect()) {
                return;
            } catch (SQLException e) {
                last = e;
                pause(50);
            }
        }
        throw new IllegalStateException("postgres did not start within " + STARTUP, last);
    }

    /** Fast shutdown (SIGINT): clients are disconnected, committed work is on disk; waits until it has exited. */
    public synchronized void stop() {
        if (!isRunning()) {
            return;
        }
        try {
            run(List.of("kill", "-INT", Long.toString(process.pid())));
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    public String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    public String user() {
        return "postgres";
    }

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url() + "?connectTimeout=2&socketTimeout=10", user(), "");
    }

    @Override
    public void close() {
        stop();
        try {
            run(List.of("rm", "-rf", dataDir.getParent().toString()));
        } catch (IOException e) {
            // left behind in its temporary directory
        }
    }

    private static List<String> asServerUser(List<String> command) {
        if (!root()) {
            return command;
        }
        List<String> wrapped = new ArrayList<>(List.of("setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"));
        wrapped.addAll(command);
        return wrapped;
    }

    private static void run(List<String> command) throws IOException {
        run(command, null);
    }

    /** @param directory where the command runs ({@code null}: here); the server's user must be able to enter it */
    private static void run(List<String> command, Path directory) throws IOException {
        Process p = new ProcessBuilder(command).directory(directory == null ? null : directory.toFile())
                .redirectErrorStream(true).start();
        try {
            String output = new String(p.getInputStream().readAllBytes());
            if (p.waitFor() != 0) {
                throw new IOException(String.join(" ", command) + " failed: " + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
