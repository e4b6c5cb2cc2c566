package dev.llmratelimit.outbound.springai;

import dev.llmratelimit.outbound.OutboundExchange;
import dev.llmratelimit.outbound.OutboundLimiter;
import dev.llmratelimit.outbound.WatchedInputStream;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.support.HttpRequestWrapper;

import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;

/**
 * The limiter for Spring's {@code RestClient} and {@code RestTemplate}, which Spring AI's OpenAI and
 * Anthropic models call through: {@code restClientBuilder.requestInterceptor(new OutboundRestClientInterceptor(limiter))}.
 * A call to a governed provider waits for its place on the calling thread, then goes with its body (with
 * {@code include_usage} for a chat stream); the answer's headers correct the buckets and its body settles
 * the permit when it is read to the end or closed. A refused call fails with
 * {@link dev.llmratelimit.outbound.OutboundLimitException} before anything is sent.
 */
public final class OutboundRestClientInterceptor implements ClientHttpRequestInterceptor {

    private final OutboundLimiter limiter;

    public OutboundRestClientInterceptor(OutboundLimiter limiter) {
        this.limiter = limiter;
    }

    @Override
    public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
            throws IOException {
        String url = request.getURI().toString();
        Optional<OutboundExchange> governed = limiter.providerFor(url).isEmpty()
                ? Optional.empty() : OutboundExchange.open(limiter, url, body);
        if (governed.isEmpty()) {
            return execution.execute(request, body);
        }
        OutboundExchange exchange = governed.get();
        exchange.acquireForIo();
        byte[] sent = exchange.body();
        ClientHttpResponse response;
        try {
            response = execution.execute(withLength(request, sent.length), sent);
        } catch (IOException | RuntimeException e) {
            exchange.failed(e);
            throw e;
        }
        int status = response.getStatusCode().value();
        OutboundExchange.ResponseWatch watch = exchange.answered(status, response.getHeaders()::getFirst);
        return new WatchedResponse(response, new WatchedInputStream(response.getBody(), watch, status == 429));
    }

    private static HttpRequest withLength(HttpRequest request, long length) {
        HttpHeaders headers = new HttpHeaders();
        headers.putAll(request.getHeaders());
        headers.setContentLength(length);
        return new HttpRequestWrapper(request) {
            @Override
            public HttpHeaders getHeaders() {
                return headers;
            }
        };
    }

    /** The provider's answer with its body read through the watch. */
    private record WatchedResponse(ClientHttpResponse response, InputStream body) implements ClientHttpResponse {

        @Override
        public HttpStatusCode getStatusCode() throws IOException {
            return response.getStatusCode();
        }

        @Override
        public String getStatusText() throws IOException {
            return response.getStatusText();
        }

        @Override
        public HttpHeaders getHeaders() {
            return response.getHeaders();
        }

        @Override
        public InputStream getBody() {
            return body;
        }

        @Override
        public void close() {
            try {
                body.close();
            } catch (IOException e) {
                // the answer is being dropped anyway
            }
            response.close();
        }
    }
}
