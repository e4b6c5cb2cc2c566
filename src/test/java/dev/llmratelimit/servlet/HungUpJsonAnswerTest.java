package dev.llmratelimit.servlet;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.HangingUpClient;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static dev.llmratelimit.testsupport.Admits.admit;
import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A JSON answer written in two flushes with its usage last, as a proxy forwards a provider's answer
 * or Jackson writes past its buffer: a client that hangs up after the first piece was served that
 * piece and the prompt behind it. It is charged the prompt plus the output written (bytes / 4), and
 * in {@code reserve} mode never less than its reservation. Refunding it (as an aborted call) would
 * charge 0: the figures below would be 0.
 */
class HungUpJsonAnswerTest {

    private static final long TPM = 10_000_000;
    private static final long MAX_TOKENS = 200_000;
    private static final Encoding CL100K = Encodings.newDefaultEncodingRegistry().getEncoding(EncodingType.CL100K_BASE);
    private static final long PROMPT = 3 + 3 + tokens("user") + tokens("Hi");

    /**
     * Writes {@code firstPiece} bytes of the answer, waits for the client to hang up, then writes on until writing fails.
     * The client can read the first piece's last byte before the container's flush of it has returned (the
     * flush may still be writing the chunk's trailing bytes, and then fails), so it hangs up only once
     * {@link #firstPieceSent} says the flush is done.
     */
    static final class TwoFlushesServlet extends HttpServlet {
        final int firstPiece;
        final CountDownLatch firstPieceSent = new CountDownLatch(1);
        final CountDownLatch clientHungUp = new CountDownLatch(1);
        final CompletableFuture<Long> attempted = new CompletableFuture<>();

        TwoFlushesServlet(int firstPiece) {
            this.firstPiece = firstPiece;
        }

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            request.getInputStream().readAllBytes();
            response.setContentType("application/json");
            OutputStream out = response.getOutputStream();
            byte[] head = ("{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"padding\":\""
                    + "a".repeat(firstPiece - 70) + "\",\n").getBytes(StandardCharsets.US_ASCII);
            long written = 0;
            try {
                written += head.length;
                out.write(head);
                out.flush();
                firstPieceSent.countDown();
                clientHungUp.await(10, TimeUnit.SECONDS);
                byte[] more = (" ".repeat(65_535) + "\n").getBytes(StandardCharsets.US_ASCII);
                for (int i = 0; i < 1_000; i++) {
                    written += more.length;
                    out.write(more);
                    out.flush();
                }
                byte[] usage = "\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":20}}"
                        .getBytes(StandardCharsets.US_ASCII);
                written += usage.length;
                out.write(usage);
                out.flush();
            } catch (IOException | InterruptedException | RuntimeException e) {
                attempted.complete(written);      // whichever way the container reports the dead connection
                return;
            }
            attempted.completeExceptionally(new AssertionError("writing never failed"));
        }
    }

    private static long tokens(String text) {
        return CL100K.encodeOrdinary(text).size();
    }

    private static long hangUpAfterFirstPiece(TwoFlushesServlet app, String... settings) throws Exception {
        RateLimitRuntime runtime = RateLimitRuntime.create(properties(settings), null);
        try (FilterServer server = new FilterServer(runtime, Map.of("sk-a", "alice"), app, "/v1/chat/completions")) {
            byte[] body = ("{\"model\":\"m\",\"max_tokens\":" + MAX_TOKENS
                    + ",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}").getBytes(StandardCharsets.UTF_8);
            Socket socket = HangingUpClient.postAndReadUntil(server.port(), "sk-a", body, "\"padding\"");
            assertThat(app.firstPieceSent.await(30, TimeUnit.SECONDS)).isTrue();
            socket.close();
            app.clientHungUp.countDown();
            long attempted = app.attempted.get(90, TimeUnit.SECONDS);
            long used = 0;
            for (int i = 0; i < 500; i++) {                  // the filter settles once the servlet has returned
                Admission probe = admit(runtime.limiter(), "m", null, null, 0, 0);
                used = TPM - probe.verdict().tokenRemaining() - (reserve(settings) ? 1 : 0);   // a reserving probe holds 1
                probe.abort();
                if (used >= PROMPT) {
                    break;
                }
                Thread.sleep(10);
            }
            assertThat(used).isEqualTo(Math.max(PROMPT + (attempted + 3) / 4, reservation(settings)));
            return used;
        }
    }

    private static boolean reserve(String... settings) {
        return String.join(",", settings).contains("token-admission=reserve");
    }

    private static long reservation(String... settings) {
        return reserve(settings) ? PROMPT + MAX_TOKENS : 0;
    }

    @Test
    void recordedModeChargesThePromptAndTheOutputWritten() throws Exception {
        long used = hangUpAfterFirstPiece(new TwoFlushesServlet(40_000), "models.m.tpm=" + TPM);
        assertThat(used).isGreaterThan(PROMPT + 10_000);
    }

    @Test
    void reserveModeKeepsTheReservationWhenLessWasWritten() throws Exception {
        long used = hangUpAfterFirstPiece(new TwoFlushesServlet(4_000), "models.m.tpm=" + TPM, "token-admission=reserve");
        assertThat(used).isEqualTo(PROMPT + MAX_TOKENS);
    }
}
