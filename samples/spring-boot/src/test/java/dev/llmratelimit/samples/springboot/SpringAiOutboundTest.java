package dev.llmratelimit.samples.springboot;

import com.sun.net.httpserver.HttpServer;
import dev.llmratelimit.outbound.OutboundLimitException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatModel;
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
 * The application's own calls through Spring AI's OpenAI chat model (Spring AI 2.0 on Boot 4, 1.1 on Boot 3.5)
 * to a local provider, limited on the client side at 2 requests a minute that never wait: two calls reach
 * the provider, the third is refused before anything is sent.
 */
@SpringBootTest
@DirtiesContext
class SpringAiOutboundTest {

    private static final AtomicInteger CALLS = new AtomicInteger();
    private static final HttpServer PROVIDER = provider();

    @Autowired
    ChatModel chatModel;

    /** Answers every chat completion with 10 prompt and 20 completion tokens (Spring AI 1.1 calls /v1/chat/completions, 2.0 /chat/completions). */
    private static HttpServer provider() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/", exchange -> {
                CALLS.incrementAndGet();
                exchange.getRequestBody().readAllBytes();
                byte[] answer = """
                        {"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-4o-mini",\
                        "choices":[{"index":0,"message":{"role":"assistant","content":"Hello!"},"finish_reason":"stop"}],\
                        "usage":{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30}}""".getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(exchange.getRequestURI().getPath().endsWith("/chat/completions") ? 200 : 404,
                        answer.length);
                exchange.getResponseBody().write(answer);
                exchange.close();
            });
            server.start();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @DynamicPropertySource
    static void provider(DynamicPropertyRegistry properties) {
        String base = "http://127.0.0.1:" + PROVIDER.getAddress().getPort();
        properties.add("spring.ai.openai.base-url", () -> base);
        properties.add("spring.ai.openai.chat.options.model", () -> "gpt-4o-mini");
        properties.add("llm.ratelimit.outbound.openai.base-url", () -> base);
        properties.add("llm.ratelimit.outbound.openai.rpm", () -> "2");
        properties.add("llm.ratelimit.outbound.openai.headroom", () -> "1.0");
        properties.add("llm.ratelimit.outbound.openai.max-wait", () -> "0s");
    }

    @AfterAll
    static void stop() {
        PROVIDER.stop(0);
    }

    @Test
    void twoCallsReachTheProviderTheThirdIsRefusedBeforeItIsSent() {
        ChatClient client = ChatClient.create(chatModel);

        String first = client.prompt("Hi").call().content();
        String second = client.prompt("Hi").call().content();
        Throwable third = catchThrowable(() -> client.prompt("Hi").call().content());

        assertThat(first).isEqualTo("Hello!");
        assertThat(second).isEqualTo("Hello!");
        assertThat(third).isInstanceOf(OutboundLimitException.class);
        assertThat(((OutboundLimitException) third).reason()).isEqualTo(OutboundLimitException.Reason.WAIT_TOO_LONG);
        assertThat(CALLS.get()).isEqualTo(2);
    }
}
