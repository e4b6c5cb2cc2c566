package dev.llmratelimit.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real {@code redis-server} process on a loopback port, without persistence, that can be stopped
 * and started again on the same port. The binary is {@code redis-server} from the PATH, else the
 * one shipped in the embedded-redis test artifact. A JVM shutdown hook kills whatever is still
 * running.
 */
public final class RedisServer implements AutoCloseable {

    private static final String EMBEDDED_BINARY = "/redis-server-6.2.6-v5-linux-amd64";

    private final int port;
    private final List<String> extraArgs;
    private final Path directory;
    private final boolean ownSession;
    private volatile Process process;

    public RedisServer(int port, List<String> extraArgs) {
        this(port, extraArgs, false);
    }

    private RedisServer(int port, List<String> extraArgs, boolean ownSession) {
        this.port = port;
        this.extraArgs = List.copyOf(extraArgs);
        this.ownSession = ownSession;
        try {
            this.directory = Files.createTempDirectory(Path.of("target"), "redis-" + port + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(this::kill));
    }

    /** Starts a server on a free port. */
    public static RedisServer startNew() {
        RedisServer server = new RedisServer(freePort(), List.of());
        server.start();
        return server;
    }

    /**
     * Starts a server on a free port in a session of its own ({@code setsid}, when on the PATH), for
     * benchmarks: Linux then schedules it as its own group, as a Redis service would be, rather than
     * as one more thread of the JVM's group, where a benchmark's 16 client threads would starve it and
     * charge each microsecond of script work several times over. A terminal's Ctrl-C no longer
     * reaches it; the JVM's shutdown hook still stops it.
     */
    public static RedisServer startAsService() {
        RedisServer server = new RedisServer(freePort(), List.of(), true);
        server.start();
        return server;
    }

    public int port() {
        return port;
    }

    public String address() {
        return "redis://127.0.0.1:" + port;
    }

    public long pid() {
        return process.pid();
    }

    public synchronized void start() {
        if (process != null && process.isAlive()) {
            return;
        }
        wipe(directory);
        List<String> command = new ArrayList<>();
        if (ownSession) {
            onPath("setsid").ifPresent(setsid -> command.add(setsid.toString()));
        }
        command.addAll(List.of(binary().toString(),
                "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", directory.toAbsolutePath().toString()));
        command.addAll(extraArgs);
        try {
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(directory.resolveSibling(directory.getFileName() + ".log").toFile())
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start " + command, e);
        }
        awaitAnswering(true);
    }

    /** Stops the server (SIGTERM, then SIGKILL) and waits until the port no longer answers. */
    public synchronized void stop() {
        kill();
        awaitAnswering(false);
    }

    /** Kills the process at once (SIGKILL), as a crash would, and waits until the port is closed. */
    public synchronized void crash() {
        Process running = process;
        if (running != null) {
            running.destroyForcibly();
            waitFor(running);
        }
        awaitAnswering(false);
    }

    /** Freezes the process (SIGSTOP): connections stay open, commands wait, as in a long GC or a stalled VM. */
    public void pause() {
        signal("STOP");
    }

    /** Lets a paused process run again (SIGCONT): it then runs every command that waited. */
    public void resume() {
        signal("CONT");
    }

    private void signal(String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid())).inheritIO().start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + name + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public void restart() {
        stop();
        start();
    }

    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Runs one command on a fresh connection. */
    public Object call(String... args) {
        try (RespClient client = new RespClient(port)) {
            return client.call(args);
        }
    }

    public RespClient connect() {
        return new RespClient(port);
    }

    @Override
    public void close() {
        kill();
    }

    private void kill() {
        Process running = process;
        if (running == null || !running.isAlive()) {
            return;
        }
        running.destroy();
        try {
            if (!running.waitFor(5, TimeUnit.SECONDS)) {
                running.destroyForcibly();
            }
        } catch (InterruptedException e) {
            running.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        waitFor(running);
    }

    private static void waitFor(Process running) {
        try {
            running.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void awaitAnswering(boolean answering) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (answers() == answering) {
                return;
            }
            if (answering && !process.isAlive()) {
                throw new IllegalStateException("redis-server on port " + port + " exited; see " + directory + ".log");
            }
            sleep(20);
        }
        throw new IllegalStateException("redis-server on port " + port + (answering ? " did not start" : " did not stop"));
    }

    private boolean answers() {
        try (RespClient client = new RespClient(port)) {
            return "PONG".equals(client.call("PING"));
        } catch (RuntimeException e) {
            return false;
        }
    }

    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** An executable of this name on the PATH. */
    private static Optional<Path> onPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            Path candidate = Path.of(dir, name);
            if (!dir.isEmpty() && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** {@code redis-server} from the PATH, else the embedded-redis artifact's Linux binary. */
    static synchronized Path binary() {
        Optional<Path> installed = onPath("redis-server");
        if (installed.isPresent()) {
            return installed.get();
        }
        Path extracted = Path.of("target", "redis-server-embedded").toAbsolutePath();
        if (!Files.isExecutable(extracted)) {
            try (InputStream in = RedisServer.class.getResourceAsStream(EMBEDDED_BINARY)) {
                if (in == null) {
                    throw new IllegalStateException("No redis-server on the PATH and no embedded-redis binary");
                }
                Files.copy(in, extracted, StandardCopyOption.REPLACE_EXISTING);
                if (!extracted.toFile().setExecutable(true)) {
                    throw new IllegalStateException("Cannot make " + extracted + " executable");
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return extracted;
    }

    private static void wipe(Path directory) {
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).filter(p -> !p.equals(directory)).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
