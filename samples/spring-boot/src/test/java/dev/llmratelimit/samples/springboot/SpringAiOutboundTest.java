package dev.llmratelimit.samples.springboot;

import com.sun.net.httpserver.HttpExchange;
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

    private static final AtomicInteger OPENAI_CALLS = new AtomicInteger();
    private static final AtomicInteger ANTHROPIC_CALLS = new AtomicInteger();
    private static final HttpServer PROVIDERS = providers();

    @Autowired
    OpenAiChatModel openAi;

    @Autowired
    AnthropicChatModel anthropic;

    /**
     * Answers chat completions (Spring AI 1.1 calls /v1/chat/completions, 2.0 /chat/completions) and Anthropic
     * messages (/v1/messages), each with 10 prompt and 20 completion tokens.
     */
    private static HttpServer providers() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/", exchange -> {
                String path = exchange.getRequestURI().getPath();
                exchange.getRequestBody().readAllBytes();
                if (path.endsWith("/chat/completions")) {
                    OPENAI_CALLS.incrementAndGet();
                    answer(exchange, 200, """
                            {"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-4o-mini",\
                            "choices":[{"index":0,"message":{"role":"assistant","content":"Hello!"},"finish_reason":"stop"}],\
                            "usage":{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30}}""");
                } else if (path.equals("/v1/messages")) {
                    ANTHROPIC_CALLS.incrementAndGet();
                    answer(exchange, 200, """
                            {"id":"msg_1","type":"message","role":"assistant","model":"claude-haiku-4-5",\
                            "content":[{"type":"text","text":"Hello!"}],"stop_reason":"end_turn","stop_sequence":null,\
                            "usage":{"input_tokens":10,"output_tokens":20}}""");
                } else {
                    answer(exchange, 404, "{}");
                }
            });
            server.start();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void answer(HttpExchange exchange, int status, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }

    @DynamicPropertySource
    static void providers(DynamicPropertyRegistry properties) {
        String base = "http://127.0.0.1:" + PROVIDERS.getAddress().getPort();
        properties.add("spring.ai.openai.base-url", () -> base);
        properties.add("spring.ai.openai.chat.options.model", () -> "gpt-4o-mini");
        properties.add("spring.ai.anthropic.base-url", () -> base);
        properties.add("spring.ai.anthropic.chat.options.model", () -> "claude-haiku-4-5");
        for (String provider : new String[]{"openai", "anthropic"}) {
            String prefix = "llm.ratelimit.outbound." + provider + ".";
            properties.add(prefix + "base-url", () -> base);
            properties.add(prefix + "rpm", () -> "2");
            properties.add(prefix + "headroom", () -> "1.0");
            properties.add(prefix + "max-wait", () -> "0s");
        }
    }

    @AfterAll
    static void stop() {
        PROVIDERS.stop(0);
    }

    @Test
    void openAiTwoCallsReachTheProviderTheThirdIsRefusedBeforeItIsSent() {
        assertTwoServedThenRefused(ChatClient.create(openAi));
        assertThat(OPENAI_CALLS.get()).isEqualTo(2);
    }

    @Test
    void anthropicTwoCallsReachTheProviderTheThirdIsRefusedBeforeItIsSent() {
        assertTwoServedThenRefused(ChatClient.create(anthropic));
        assertThat(ANTHROPIC_CALLS.get()).isEqualTo(2);
    }

    private static void assertTwoServedThenRefused(ChatClient client) {
        String first = client.prompt("Hi").call().content();
        String second = client.prompt("Hi").call().content();
        Throwable third = catchThrowable(() -> client.prompt("Hi").call().content());

        assertThat(first).isEqualTo("Hello!");
        assertThat(second).isEqualTo("Hello!");
        assertThat(third).isInstanceOf(OutboundLimitException.class);
        assertThat(((OutboundLimitException) third).reason()).isEqualTo(OutboundLimitException.Reason.WAIT_TOO_LONG);
    }
}
