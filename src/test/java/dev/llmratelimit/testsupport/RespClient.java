package dev.llmratelimit.testsupport;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal RESP2 client for tests: inspects and steers a Redis server independently of the
 * Redisson client under test. Replies: String (status, bulk), Long, List, null; errors throw.
 */
public final class RespClient implements AutoCloseable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public RespClient(int port) {
        try {
            socket = new Socket();
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            socket.setSoTimeout(10_000);
            in = new BufferedInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        } catch (IOException e) {
            throw new UncheckedIOException("No Redis on port " + port, e);
        }
    }

    /** Sends one command and reads its reply. */
    public Object call(String... args) {
        send(args);
        return read();
    }

    public void send(String... args) {
        try {
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            buffer.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.UTF_8));
            for (String arg : args) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                buffer.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
                buffer.write(bytes);
                buffer.write("\r\n".getBytes(StandardCharsets.UTF_8));
            }
            out.write(buffer.toByteArray());
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads one reply (also the pushed lines of MONITOR). */
    public Object read() {
        try {
            int type = in.read();
            String line = line();
            return switch (type) {
                case '+' -> line;
                case '-' -> throw new IllegalStateException("Redis error: " + line);
                case ':' -> Long.parseLong(line);
                case '$' -> bulk(Integer.parseInt(line));
                case '*' -> array(Integer.parseInt(line));
                default -> throw new IllegalStateException("Unexpected RESP type " + type + " " + line);
            };
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String bulk(int length) throws IOException {
        if (length < 0) {
            return null;
        }
        byte[] bytes = in.readNBytes(length + 2);
        return new String(bytes, 0, length, StandardCharsets.UTF_8);
    }

    private List<Object> array(int length) {
        if (length < 0) {
            return null;
        }
        List<Object> items = new ArrayList<>(length);
        for (int i = 0; i < length; i++) {
            items.add(read());
        }
        return items;
    }

    private String line() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\r') {
            if (b < 0) {
                throw new IOException("Connection closed");
            }
            bytes.write(b);
        }
        in.read();
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // nothing left to do
        }
    }
}
