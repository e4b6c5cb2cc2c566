package dev.llmratelimit.samples.springboot;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;

/** Debian's {@code redis-server} on a free port, without persistence, until closed. */
final class RedisProcess implements AutoCloseable {

    private final Process process;
    private final int port;

    RedisProcess() throws IOException, InterruptedException {
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        process = new ProcessBuilder("redis-server", "--port", String.valueOf(port), "--save", "", "--appendonly", "no")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        for (int attempt = 0; attempt < 100; attempt++) {
            try (Socket ignored = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException notYet) {
                Thread.sleep(50);
            }
        }
        process.destroy();
        throw new IllegalStateException("redis-server did not start on port " + port);
    }

    String address() {
        return "redis://127.0.0.1:" + port;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        process.waitFor();
    }
}
