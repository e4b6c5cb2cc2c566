package dev.llmratelimit.servlet;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.Http;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.Map;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.llmratelimit.testsupport.Admits.admit;

/** {@code token-admission=reserve} through the filter, over real HTTP. */
class ReserveFilterTest {

    private static final long TPM = 100_000;
    /** The models' tokenizer (they are unknown to jtokkit's model list, so cl100k_base), used directly. */
    private static final Encoding CL100K = Encodings.newDefaultEncodingRegistry().getEncoding(EncodingType.CL100K_BASE);

    private static RateLimitRuntime runtime;
    private static FilterServer server;
    private static Http http;

    @BeforeAll
    static void start() throws Exception {
        runtime = RateLimitRuntime.create(properties("token-admission=reserve", "models.plain.tpm=" + TPM,
                "models.no-usage.tpm=" + TPM, "models.error-status.tpm=" + TPM, "models.throws.tpm=" + TPM,
                "models.broken-usage.tpm=60000"), null);
        server = new FilterServer(runtime, Map.of(), new ScriptedChatServlet(), "/v1/chat/completions");
        http = server.http();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static long tokens(String text) {
        return CL100K.encodeOrdinary(text).size();
    }

    /** Tokens counted for a model: what a 1-token reservation sees, refunded at once. */
    private static long used(String model) {
        Admission probe = admit(runtime.limiter(), model, null, null, 0, 1);
        long used = TPM - 1 - probe.verdict().tokenRemaining();
        probe.abort();
        return used;
    }

    @Test
    void theReservationIsTheTokenizersCountOfTheMessagesPlusMaxTokensThenTheActualUsage() {
        String body = """
                {"model":"plain","max_tokens":50,"messages":[
                 {"role":"system","content":"You are a terse assistant."},
                 {"role":"user","name":"alice","content":"Grüße! How many tokens is this sentence?"},
                 {"role":"assistant","content":"Eleven, give or take."},
                 {"role":"user","content":[{"type":"text","text":"And this one, in parts?"}]}]}""";
        // The cookbook formula: 3 per message, 1 more for a name, 3 priming the reply.
        long prompt = 3
                + 3 + tokens("system") + tokens("You are a terse assistant.")
                + 3 + tokens("user") + tokens("Grüße! How many tokens is this sentence?") + 1 + tokens("alice")
                + 3 + tokens("assistant") + tokens("Eleven, give or take.")
                + 3 + tokens("user") + tokens("And this one, in parts?");
        assertThat(prompt).isEqualTo(52);

        HttpResponse<String> response = http.chat(null, body);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(Http.header(response, "x-ratelimit-remaining-tokens")).isEqualTo(Long.toString(TPM - prompt - 50));
        assertThat(used("plain")).isEqualTo(30);                                // corrected to the response's usage
    }

    @Test
    void aPromptHiddenInToolsIsReservedInFull() {
        String description = "The quick brown fox jumps over the lazy dog, again and again. ".repeat(1_540);
        String body = "{\"model\":\"broken-usage\",\"max_tokens\":20,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],"
                + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"description\":\"" + description + "\"}}]}";
        byte[] bytes = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        long reservation = dev.llmratelimit.usage.TokenCounter.forModel("broken-usage").promptTokens(bytes, bytes.length) + 20;
        assertThat(reservation).isGreaterThan(tokens(description)).isLessThan(30_000);

        int admitted = 0;
        int refused = 0;
        for (int i = 0; i < 8; i++) {                 // unusable usage keeps the reservation as the charge
            int status = http.chat(null, body).statusCode();
            admitted += status == 200 ? 1 : 0;
            refused += status == 429 ? 1 : 0;
        }
        assertThat(admitted).isEqualTo((int) (60_000 / reservation));
        assertThat(refused).isEqualTo(8 - admitted);
    }

    private static String chat(String model) {
        return "{\"model\":\"" + model + "\",\"max_tokens\":20,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
    }

    @Test
    void failedCallsRefundTheWholeEstimateAndCallsWithoutUsageKeepIt() {
        long estimate = 3 + 3 + tokens("user") + tokens("Hi") + 20;
        assertThat(http.chat(null, chat("error-status")).statusCode()).isEqualTo(500);
        assertThat(http.chat(null, chat("throws")).statusCode()).isEqualTo(500);
        assertThat(used("error-status")).isZero();
        assertThat(used("throws")).isZero();

        HttpResponse<String> none = http.chat(null, chat("no-usage"));
        assertThat(Http.header(none, "x-ratelimit-remaining-tokens")).isEqualTo(Long.toString(TPM - estimate));
        assertThat(used("no-usage")).isEqualTo(estimate);
    }
}
