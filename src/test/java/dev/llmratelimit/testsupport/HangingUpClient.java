package dev.llmratelimit.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** A raw HTTP/1.1 client that reads a streamed answer up to a marker, so the test can hang up mid-stream. */
public final class HangingUpClient {

    private HangingUpClient() {
    }

    /**
     * POSTs a chat request and reads the answer until a line contains {@code marker}; closing the
     * returned socket is the client hanging up.
     */
    public static Socket postAndReadUntil(int port, String apiKey, byte[] body, String marker) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        OutputStream out = socket.getOutputStream();
        out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + apiKey
                + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        BufferedReader reader = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = reader.readLine()) != null) {
            if (line.contains(marker)) {
                return socket;
            }
        }
        socket.close();
        throw new AssertionError("the answer ended before " + marker);
    }
}
