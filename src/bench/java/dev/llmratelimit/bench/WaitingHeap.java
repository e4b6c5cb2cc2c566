package dev.llmratelimit.bench;

import dev.llmratelimit.demo.BenchServer;
import dev.llmratelimit.policy.WaitPolicy;
import dev.llmratelimit.testsupport.Policies;
import dev.llmratelimit.wait.WaitRoom;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.MemoryPoolMXBean;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Part 6, the heap that waiting takes: a JVM of its own with {@value #HEAP} runs the demo endpoint behind the
 * filter (model full: {@code rpd=1}, used up first; {@code max-wait} long; the room's limits at their
 * defaults) and is sent {@value #REQUESTS} requests of {@value #BODY_MIB} MiB one after the other, each
 * either parked in the wait room or answered before the next is sent: more than the heap if all waited.
 * It reports what the room holds, the heap per waiter (used heap after GC, with and without the waiters),
 * the heap's peak, the 429s answered at once, and any OutOfMemoryError the server logged.
 */
final class WaitingHeap {

    static final String HEAP = "-Xmx512m";
    static final int REQUESTS = 160;
    static final int BODY_MIB = 4;
    private static final String RESULT = "waiting-heap ";

    record Result(int requests, int waiters, long waitingBytes, long maxWaitingBytes, int refusedAtOnce, int other,
                  long heapPerWaiterBytes, long heapWithWaitersBytes, long peakHeapBytes, long maxHeapBytes,
                  int outOfMemoryErrors) {
    }

    private WaitingHeap() {
    }

    /** Runs {@link #main} in a JVM with {@value #HEAP} and reads its result. */
    static Result measureInChildJvm() throws Exception {
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), HEAP,
                "-cp", System.getProperty("java.class.path"), WaitingHeap.class.getName())
                .redirectErrorStream(true).start();
        process.onExit().orTimeout(5, TimeUnit.MINUTES).exceptionally(timedOut -> process.destroyForcibly());
        String result = null;
        int outOfMemoryErrors = 0;
        try (BufferedReader output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = output.readLine(); line != null; line = output.readLine()) {
                if (line.startsWith(RESULT)) {
                    result = line.substring(RESULT.length());
                } else if (line.contains("OutOfMemoryError")) {
                    outOfMemoryErrors++;
                }
            }
        }
        if (process.waitFor() != 0 || result == null) {
            throw new IllegalStateException("the waiting-heap JVM gave no result (exit " + process.exitValue()
                    + "; it is stopped after 5 minutes)");
        }
        long[] v = Arrays.stream(result.split(" ")).mapToLong(Long::parseLong).toArray();
        return new Result((int) v[0], (int) v[1], v[2], v[3], (int) v[4], (int) v[5], v[6], v[7], v[8], v[9],
                outOfMemoryErrors);
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> properties = Policies.properties("models.gpt-4o.rpd=1", "max-wait=120s");
        byte[] body = ("{\"model\":\"gpt-4o\",\"max_tokens\":20,\"messages\":[{\"role\":\"user\",\"content\":\""
                + "a".repeat((BODY_MIB << 20) - 100) + "\"}]}").getBytes(StandardCharsets.UTF_8);
        try (BenchServer server = BenchServer.start(properties, Map.of(), 10, 20, Duration.ZERO)) {
            WaitRoom room = server.runtime().waitRoom();
            try (Socket first = send(server.port(), body)) {
                if (status(first) != 200) {
                    throw new IllegalStateException("the request that fills the model was not admitted");
                }
            }
            long baseline = Heap.usedAfterGc();
            Heap.pools().forEach(MemoryPoolMXBean::resetPeakUsage);
            List<Socket> sockets = new ArrayList<>();
            for (int i = 0; i < REQUESTS; i++) {
                int waitersBefore = room.waiters();
                Socket socket = send(server.port(), body);
                sockets.add(socket);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (socket.getInputStream().available() == 0 && room.waiters() == waitersBefore
                        && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
            }
            long peak = Heap.pools().stream().mapToLong(pool -> pool.getPeakUsage().getUsed()).sum();
            long withWaiters = Heap.usedAfterGc();
            int waiters = room.waiters();
            long waitingBytes = room.waitingBytes();
            int refused = 0;
            int other = 0;
            for (Socket socket : sockets) {
                if (socket.getInputStream().available() > 0) {
                    if (status(socket) == 429) {
                        refused++;
                    } else {
                        other++;
                    }
                }
                socket.close();
            }
            System.out.println(RESULT + REQUESTS + " " + waiters + " " + waitingBytes + " "
                    + WaitPolicy.DEFAULT_MAX_WAITING_BYTES + " " + refused + " " + other + " "
                    + (waiters == 0 ? 0 : (withWaiters - baseline) / waiters) + " " + withWaiters + " " + peak + " "
                    + Runtime.getRuntime().maxMemory());
        }
        System.exit(0);
    }

    /** A request written on a socket of its own (the client keeps no copy of the body); its answer is read later. */
    private static Socket send(int port, byte[] body) throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
        OutputStream out = socket.getOutputStream();
        out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        return socket;
    }

    /** The status code of the answer on the socket. */
    private static int status(Socket socket) throws IOException {
        byte[] line = new byte[12];
        int read = socket.getInputStream().readNBytes(line, 0, line.length);
        return read < line.length ? -1 : Integer.parseInt(new String(line, 9, 3, StandardCharsets.US_ASCII));
    }
}
