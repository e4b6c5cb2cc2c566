package dev.llmratelimit.outbound;

import dev.llmratelimit.testsupport.ClassPaths;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.URLClassLoader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An application without LangChain4j or Spring: the client-side limiter and its java.net.http wrapper
 * load and limit; only the LangChain4j and Spring AI hooks name those libraries.
 */
class WithoutLangChain4jOrSpringTest {

    @Test
    void theLimiterRunsWithoutEitherLibrary() throws Exception {
        try (URLClassLoader loader = ClassPaths.without("langchain4j", "springframework");
             FakeProvider provider = new FakeProvider(1_000_000, 1_000_000, 1.0)) {
            assertThatThrownBy(() -> loader.loadClass("dev.langchain4j.http.client.HttpClientBuilder"))
                    .isInstanceOf(ClassNotFoundException.class);
            assertThatThrownBy(() -> loader.loadClass("org.springframework.web.client.RestClient"))
                    .isInstanceOf(ClassNotFoundException.class);

            for (String name : new String[] {"OutboundLimiter", "OutboundLimiters", "OutboundExchange",
                    "OutboundRequest", "WatchedInputStream", "http.LimitedHttpClient"}) {
                Class<?> type = Class.forName("dev.llmratelimit.outbound." + name, true, loader);
                type.getDeclaredMethods();
                type.getDeclaredFields();
            }
            Object limiter = loader.loadClass("dev.llmratelimit.outbound.OutboundLimiters")
                    .getMethod("fromProperties", Map.class)
                    .invoke(null, Map.of("llm.ratelimit.outbound.openai.base-url", provider.baseUrl(),
                            "llm.ratelimit.outbound.openai.rpm", "2", "llm.ratelimit.outbound.openai.headroom", "0.5", "llm.ratelimit.outbound.openai.max-wait", "0s"));
            try {
                HttpClient http = (HttpClient) loader.loadClass("dev.llmratelimit.outbound.http.LimitedHttpClient")
                        .getMethod("wrap", HttpClient.class, loader.loadClass("dev.llmratelimit.outbound.OutboundLimiter"))
                        .invoke(null, HttpClient.newHttpClient(), limiter);
                HttpRequest chat = HttpRequest.newBuilder(URI.create(provider.baseUrl() + "/chat/completions"))
                        .POST(HttpRequest.BodyPublishers.ofString(FakeProvider.CHAT)).build();
                assertThat(http.send(chat, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
                // 2 RPM at 50 %: one call a minute, so the second has no room within max-wait 0
                assertThatThrownBy(() -> http.send(chat, HttpResponse.BodyHandlers.ofString()))
                        .satisfies(e -> assertThat(e.getClass().getName()).isEqualTo(OutboundLimitException.class.getName()));
                assertThat(provider.served()).isEqualTo(1);
            } finally {
                ((AutoCloseable) limiter).close();
            }

            assertThatThrownBy(() -> Class.forName("dev.llmratelimit.outbound.langchain4j.LimitedLangChain4jHttpClientBuilder", true, loader))
                    .isInstanceOf(NoClassDefFoundError.class);
            assertThatThrownBy(() -> Class.forName("dev.llmratelimit.outbound.springai.OutboundRestClientInterceptor", true, loader))
                    .isInstanceOf(NoClassDefFoundError.class);
        }
    }
}
