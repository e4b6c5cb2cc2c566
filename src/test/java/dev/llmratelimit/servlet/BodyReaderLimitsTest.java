package dev.llmratelimit.servlet;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.testsupport.FilterServer;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The body buffer grows with the bytes that arrive, whatever {@code Content-Length} declares, and the
 * application reads every body exactly as sent.
 */
class BodyReaderLimitsTest {

    static final class CountingApplication extends HttpServlet {
        final AtomicInteger calls = new AtomicInteger();

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            calls.incrementAndGet();
            request.getInputStream().readAllBytes();
            response.setContentType("application/json");
            response.getOutputStream().write("{\"id\":\"1\",\"choices\":[]}".getBytes(StandardCharsets.UTF_8));
        }
    }

    private static Socket declare(int port, long contentLength, byte[] sent) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        OutputStream out = socket.getOutputStream();
        out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + contentLength + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(sent);
        out.flush();
        return socket;
    }

    /** The whole answer; the server closes the connection after an error it answers itself on a broken body. */
    private static String answer(Socket socket) throws IOException {
        socket.setSoTimeout(10_000);
        InputStream in = socket.getInputStream();
        StringBuilder answer = new StringBuilder();
        byte[] buffer = new byte[4096];
        for (int read; !answer.toString().endsWith("}}") && !answer.toString().endsWith("</html>")
                && (read = in.read(buffer)) != -1; ) {
            answer.append(new String(buffer, 0, read, StandardCharsets.UTF_8));
        }
        return answer.toString();
    }

    /** Declared 2 GiB with max-body-size=3GiB: this was a 500 (a negative buffer size) before a byte was read. */
    @Test
    void aDeclaredLengthBeyondWhatAnArrayHoldsIs413NeverA500() throws Exception {
        CountingApplication application = new CountingApplication();
        try (FilterServer server = new FilterServer(RateLimitRuntime.create(properties("models.m.rpm=10",
                "max-body-size=3GiB"), null), Map.of(), application, "/v1/chat/completions");
             Socket socket = declare(server.port(), 2_147_483_648L, "{\"model\":\"m\"}".getBytes(StandardCharsets.US_ASCII))) {
            assertThat(answer(socket)).startsWith("HTTP/1.1 413 ").endsWith("{\"error\":{\"message\":"
                    + "\"Request body exceeds the maximum of 2147483639 bytes\",\"type\":\"invalid_request_error\","
                    + "\"param\":null,\"code\":\"request_too_large\"}}");
            assertThat(application.calls.get()).isZero();
        }
    }

    @Test
    void aBodyEndingBeforeItsDeclaredLengthIs400NeverA500() throws Exception {
        CountingApplication application = new CountingApplication();
        try (FilterServer server = new FilterServer(RateLimitRuntime.create(properties("models.m.rpm=10"), null),
                Map.of(), application, "/v1/chat/completions");
             Socket socket = declare(server.port(), 1 << 20, "{\"model\":\"m\"}".getBytes(StandardCharsets.US_ASCII))) {
            socket.shutdownOutput();
            // Tomcat marks the broken body itself (BadRequestException) and answers with its own 400 page
            assertThat(answer(socket)).startsWith("HTTP/1.1 400 ");
            assertThat(application.calls.get()).isZero();
        }
    }

    /** Sixty connections that declare 4 MiB and send one byte used to cost 4 MiB of heap each at once. */
    @Test
    void connectionsThatDeclareMuchAndSendLittleCostLittle() throws Exception {
        CountingApplication application = new CountingApplication();
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (FilterServer server = new FilterServer(RateLimitRuntime.create(properties("models.m.rpm=1000"), null),
                Map.of(), application, "/v1/chat/completions")) {
            long before = allocated(threads);
            List<Socket> sockets = new ArrayList<>();
            try {
                for (int i = 0; i < 60; i++) {
                    sockets.add(declare(server.port(), 4L << 20, new byte[] {'{'}));
                }
                waitUntilAllRead(threads, before);
                long allocated = allocated(threads) - before;
                assertThat(allocated).as("bytes allocated for 60 connections").isLessThan(32L << 20);
            } finally {
                for (Socket socket : sockets) {
                    socket.close();
                }
            }
            assertThat(application.calls.get()).isZero();
        }
    }

    static final class RecordingApplication extends HttpServlet {
        final List<byte[]> bodies = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            bodies.add(request.getInputStream().readAllBytes());
            response.setContentType("application/json");
            response.getOutputStream().write("{\"id\":\"1\",\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}"
                    .getBytes(StandardCharsets.UTF_8));
        }
    }

    /** A chat body of exactly {@code size} bytes. */
    private static byte[] bodyOf(int size) {
        String head = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"";
        String tail = "\"}]}";
        return (head + "x".repeat(size - head.length() - tail.length()) + tail).getBytes(StandardCharsets.US_ASCII);
    }

    /** Around the first buffer's 8 KiB, with a declared length and chunked: the application reads what was sent. */
    @Test
    void everyBodyReachesTheApplicationWhole() throws Exception {
        RecordingApplication application = new RecordingApplication();
        List<byte[]> sent = new ArrayList<>();
        try (FilterServer server = new FilterServer(RateLimitRuntime.create(properties("models.m.rpm=1000"), null),
                Map.of(), application, "/v1/chat/completions")) {
            for (int size : new int[] {60, 8191, 8192, 8193, 20_000}) {
                byte[] body = bodyOf(size);
                try (Socket socket = declare(server.port(), body.length, body)) {
                    assertThat(answer(socket)).startsWith("HTTP/1.1 200 ");
                }
                sent.add(body);
                try (Socket socket = chunked(server.port(), body)) {
                    assertThat(answer(socket)).startsWith("HTTP/1.1 200 ");
                }
                sent.add(body);
            }
        }
        assertThat(application.bodies).hasSize(sent.size());
        for (int i = 0; i < sent.size(); i++) {
            assertThat(application.bodies.get(i)).as("body %d", i).isEqualTo(sent.get(i));
        }
    }

    /** The body in chunks of 1,000 bytes, with no {@code Content-Length}. */
    private static Socket chunked(int port, byte[] body) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        OutputStream out = socket.getOutputStream();
        out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        for (int offset = 0; offset < body.length; offset += 1000) {
            int length = Math.min(1000, body.length - offset);
            out.write((Integer.toHexString(length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body, offset, length);
            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return socket;
    }

    /** Reading the first bytes of sixty bodies allocates a little; a moment for the connector to get to all of them. */
    private static void waitUntilAllRead(com.sun.management.ThreadMXBean threads, long before) throws InterruptedException {
        long previous = -1;
        for (int i = 0; i < 40; i++) {
            Thread.sleep(25);
            long now = allocated(threads) - before;
            if (now == previous) {
                return;
            }
            previous = now;
        }
    }

    private static long allocated(com.sun.management.ThreadMXBean threads) {
        return Arrays.stream(threads.getThreadAllocatedBytes(threads.getAllThreadIds())).filter(b -> b > 0).sum();
    }
}
