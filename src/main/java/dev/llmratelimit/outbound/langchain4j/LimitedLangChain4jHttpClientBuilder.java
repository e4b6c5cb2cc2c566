package dev.llmratelimit.outbound.langchain4j;

import dev.langchain4j.http.client.HttpClient;
import dev.langchain4j.http.client.HttpClientBuilder;
import dev.langchain4j.http.client.jdk.JdkHttpClient;
import dev.llmratelimit.outbound.OutboundLimiter;

import java.time.Duration;

/**
 * LangChain4j's HTTP client builder with the limiter inside: give it to any model builder that takes an
 * {@code httpClientBuilder} (OpenAI and Anthropic chat, streaming chat, embeddings):
 * <pre>{@code
 * ChatModel model = OpenAiChatModel.builder().apiKey(key).modelName("gpt-4o-mini")
 *         .httpClientBuilder(LimitedLangChain4jHttpClientBuilder.of(limiter))
 *         .build();
 * }</pre>
 * It builds LangChain4j's JDK client ({@code langchain4j-http-client-jdk}, which the OpenAI and Anthropic
 * modules bring) on a {@link java.net.http.HttpClient} wrapped by
 * {@link dev.llmratelimit.outbound.http.LimitedHttpClient}: every call to a governed provider waits for its
 * place first (a streamed one without holding a thread), and its answer settles it, headers, 429s and
 * streamed usage included. A refused call fails with {@link dev.llmratelimit.outbound.OutboundLimitException}
 * before anything is sent.
 */
public final class LimitedLangChain4jHttpClientBuilder implements HttpClientBuilder {

    private final OutboundLimiter limiter;
    private final java.net.http.HttpClient.Builder http;
    private Duration connectTimeout;
    private Duration readTimeout;

    private LimitedLangChain4jHttpClientBuilder(OutboundLimiter limiter, java.net.http.HttpClient.Builder http) {
        this.limiter = limiter;
        this.http = http;
    }

    public static LimitedLangChain4jHttpClientBuilder of(OutboundLimiter limiter) {
        return of(limiter, java.net.http.HttpClient.newBuilder());
    }

    /** With the application's own JDK client settings (proxy, TLS, executor). */
    public static LimitedLangChain4jHttpClientBuilder of(OutboundLimiter limiter, java.net.http.HttpClient.Builder http) {
        return new LimitedLangChain4jHttpClientBuilder(limiter, http);
    }

    @Override
    public Duration connectTimeout() {
        return connectTimeout;
    }

    @Override
    public LimitedLangChain4jHttpClientBuilder connectTimeout(Duration timeout) {
        this.connectTimeout = timeout;
        return this;
    }

    @Override
    public Duration readTimeout() {
        return readTimeout;
    }

    @Override
    public LimitedLangChain4jHttpClientBuilder readTimeout(Duration timeout) {
        this.readTimeout = timeout;
        return this;
    }

    @Override
    public HttpClient build() {
        return JdkHttpClient.builder()
                .httpClientBuilder(new LimitedJdkClientBuilder(http, limiter))
                .connectTimeout(connectTimeout)
                .readTimeout(readTimeout)
                .build();
    }
}
