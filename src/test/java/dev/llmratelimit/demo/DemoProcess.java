package dev.llmratelimit.demo;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A demo server in a JVM of its own, started as a user starts it; closing it kills the process. */
final class DemoProcess implements AutoCloseable {

    private static final String READY = "ready at http://127.0.0.1:";

    private final Process process;
    private final int port;

    private DemoProcess(Process process) throws Exception {
        this.process = process;
        try {
            this.port = readyPort();
        } catch (Exception | Error e) {
            process.destroyForcibly();
            throw e;
        }
    }

    /** {@code java <javaArguments> --config FILE --port 0}, e.g. {@code -jar demo.jar} or {@code -cp ... DemoServer}. */
    static DemoProcess start(Path config, String... javaArguments) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(List.of(javaArguments));
        command.addAll(List.of("--config", config.toString(), "--port", "0"));
        return new DemoProcess(new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    int port() {
        return port;
    }

    /** Reads the process's output until the demo says where it listens, then drains the rest. */
    private int readyPort() throws Exception {
        BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String line;
        while (System.nanoTime() < deadline && (line = reader.readLine()) != null) {
            int at = line.indexOf(READY);
            if (at >= 0) {
                String rest = line.substring(at + READY.length());
                Thread drain = new Thread(() -> reader.lines().forEach(ignored -> { }));
                drain.setDaemon(true);
                drain.start();
                return Integer.parseInt(rest.substring(0, rest.indexOf('/')));
            }
        }
        throw new IllegalStateException("the demo process did not start");
    }

    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }
}
