package dev.llmratelimit.samples.springboot;

import com.sun.net.httpserver.HttpServer;
import dev.llmratelimit.outbound.OutboundLimitException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.ai.anthropic.AnthropicChatModel;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The application's own calls through Spring AI's OpenAI and Anthropic chat models (Spring AI 2.0 on Boot 4,
 * where they are the providers' SDKs on OkHttp; Spring AI 1.1 on Boot 3.5, on Spring's RestClient) to local
 * providers, limited on the client side at 2 requests a minute that never wait: two calls of each reach their
 * provider, the third is refused before anything is sent.
 */
@SpringBootTest
@DirtiesContext
class SpringAiOutboundTest {

    /** Answers chat completions (Spring AI 1.1 calls /v1/chat/completions, 2.0 /chat/completions). */
    private static final FakeProvider OPENAI = new FakeProvider("/chat/completions", """
            {"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-4o-mini",\
            "choices":[{"index":0,"message":{"role":"assistant","content":"Hello!"},"finish_reason":"stop"}],\
            "usage":{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30}}""");
    /** Answers Anthropic messages (/v1/messages). */
    private static final FakeProvider ANTHROPIC = new FakeProvider("/v1/messages", """
            {"id":"msg_1","type":"message","role":"assistant","model":"claude-haiku-4-5",\
            "content":[{"type":"text","text":"Hello!"}],"stop_reason":"end_turn","stop_sequence":null,\
            "usage":{"input_tokens":10,"output_tokens":20}}""");

    @Autowired
    OpenAiChatModel openAi;

    @Autowired
    AnthropicChatModel anthropic;

    /** A provider on a port of its own that answers every call to its path with 10 prompt and 20 completion tokens. */
    private static final class FakeProvider {
        final AtomicInteger calls = new AtomicInteger();
        final HttpServer server;

        FakeProvider(String path, String answer) {
            try {
                server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            server.createContext("/", exchange -> {
                exchange.getRequestBody().readAllBytes();
                boolean known = exchange.getRequestURI().getPath().endsWith(path);
                if (known) {
                    calls.incrementAndGet();
                }
                byte[] body = (known ? answer : "{}").getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(known ? 200 : 404, body.length);
                exchange.getResponseBody().write(body);
                exchange.close();
            });
            server.start();
        }

        String baseUrl() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }
    }

    @DynamicPropertySource
    static void providers(DynamicPropertyRegistry properties) {
        properties.add("spring.ai.openai.base-url", OPENAI::baseUrl);
        properties.add("spring.ai.openai.chat.options.model", () -> "gpt-4o-mini");
        properties.add("spring.ai.anthropic.base-url", ANTHROPIC::baseUrl);
        properties.add("spring.ai.anthropic.chat.options.model", () -> "claude-haiku-4-5");
        limit(properties, "openai", OPENAI);
        limit(properties, "anthropic", ANTHROPIC);
    }

    private static void limit(DynamicPropertyRegistry properties, String name, FakeProvider provider) {
        String prefix = "llm.ratelimit.outbound." + name + ".";
        properties.add(prefix + "base-url", provider::baseUrl);
        properties.add(prefix + "rpm", () -> "2");
        properties.add(prefix + "headroom", () -> "1.0");
        properties.add(prefix + "max-wait", () -> "0s");
    }

    @AfterAll
    static void stop() {
        OPENAI.server.stop(0);
        ANTHROPIC.server.stop(0);
    }

    @Test
    void openAiTwoCallsReachTheProviderTheThirdIsRefusedBeforeItIsSent() {
        assertTwoServedThenRefused(ChatClient.create(openAi), "openai", "gpt-4o-mini");
        assertThat(OPENAI.calls.get()).isEqualTo(2);
    }

    @Test
    void anthropicTwoCallsReachTheProviderTheThirdIsRefusedBeforeItIsSent() {
        assertTwoServedThenRefused(ChatClient.create(anthropic), "anthropic", "claude-haiku-4-5");
        assertThat(ANTHROPIC.calls.get()).isEqualTo(2);
    }

    private static void assertTwoServedThenRefused(ChatClient client, String provider, String model) {
        String first = client.prompt("Hi").call().content();
        String second = client.prompt("Hi").call().content();
        Throwable third = catchThrowable(() -> client.prompt("Hi").call().content());

        assertThat(first).isEqualTo("Hello!");
        assertThat(second).isEqualTo("Hello!");
        assertThat(third).isInstanceOf(OutboundLimitException.class);
        assertThat(((OutboundLimitException) third).reason()).isEqualTo(OutboundLimitException.Reason.WAIT_TOO_LONG);
        assertThat(third.getMessage()).startsWith("The limits of " + provider + " model " + model + " have room again in");
    }
}
