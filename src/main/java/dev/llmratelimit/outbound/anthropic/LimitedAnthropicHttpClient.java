package dev.llmratelimit.outbound.anthropic;

import com.anthropic.core.RequestOptions;
import com.anthropic.core.http.Headers;
import com.anthropic.core.http.HttpClient;
import com.anthropic.core.http.HttpRequest;
import com.anthropic.core.http.HttpRequestBody;
import com.anthropic.core.http.HttpResponse;
import com.anthropic.core.http.Interceptor;
import dev.llmratelimit.outbound.OutboundExchange;
import dev.llmratelimit.outbound.OutboundLimiter;
import dev.llmratelimit.outbound.SdkAttempts;
import dev.llmratelimit.outbound.WatchedInputStream;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The official Anthropic Java SDK ({@code com.anthropic:anthropic-java}, on OkHttp): its client builder takes
 * interceptors of the SDK's own transport, and this is one. Each HTTP attempt, the SDK's own retries
 * included, acquires its place first (input tokens: the prompt; output tokens: {@code max_tokens}) and
 * settles from the answer (its {@code anthropic-ratelimit-*} headers lower the buckets; the usage of the JSON
 * answer or of the stream's {@code message_start} and {@code message_delta} settles the permit).
 * <pre>{@code
 * AnthropicClient client = AnthropicOkHttpClient.builder().apiKey(key)
 *         .addInterceptor(LimitedAnthropicHttpClient.interceptor(limiter))
 *         .build();
 * }</pre>
 * A refused call fails with {@link dev.llmratelimit.outbound.OutboundLimitException} before anything is
 * sent (the SDK does not retry it).
 */
public final class LimitedAnthropicHttpClient implements HttpClient {

    private static final String SDK_PACKAGE = "com.anthropic.";

    private final HttpClient delegate;
    private final OutboundLimiter limiter;

    private LimitedAnthropicHttpClient(HttpClient delegate, OutboundLimiter limiter) {
        this.delegate = delegate;
        this.limiter = limiter;
    }

    /** For {@code AnthropicOkHttpClient.builder().addInterceptor(...)}. */
    public static Interceptor interceptor(OutboundLimiter limiter) {
        return delegate -> new LimitedAnthropicHttpClient(delegate, limiter);
    }

    @Override
    public HttpResponse execute(HttpRequest request, RequestOptions options) {
        Optional<OutboundExchange> governed = exchange(request);
        if (governed.isEmpty()) {
            return delegate.execute(request, options);
        }
        OutboundExchange exchange = governed.get();
        return SdkAttempts.execute(exchange, () -> delegate.execute(withBody(request, exchange.body()), options),
                response -> watched(exchange, response), SDK_PACKAGE);
    }

    @Override
    public CompletableFuture<HttpResponse> executeAsync(HttpRequest request, RequestOptions options) {
        Optional<OutboundExchange> governed = exchange(request);
        if (governed.isEmpty()) {
            return delegate.executeAsync(request, options);
        }
        OutboundExchange exchange = governed.get();
        return SdkAttempts.executeAsync(exchange, () -> delegate.executeAsync(withBody(request, exchange.body()), options),
                response -> watched(exchange, response), SDK_PACKAGE);
    }

    @Override
    public void close() {
        delegate.close();
    }

    private Optional<OutboundExchange> exchange(HttpRequest request) {
        Optional<HttpRequestBody> body = request.body();
        String url = request.url();
        if (body.isEmpty() || limiter.providerFor(url).isEmpty()) {
            return Optional.empty();
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        body.get().writeTo(bytes);
        return OutboundExchange.open(limiter, url, bytes.toByteArray());
    }

    private static HttpRequest withBody(HttpRequest request, byte[] body) {
        String contentType = request.body().map(HttpRequestBody::contentType).orElse("application/json");
        return request.toBuilder().body(new BytesBody(body, contentType)).build();
    }

    private static HttpResponse watched(OutboundExchange exchange, HttpResponse response) {
        Headers headers = response.headers();
        OutboundExchange.ResponseWatch watch = exchange.answered(response.statusCode(), name -> {
            List<String> values = headers.values(name);
            return values.isEmpty() ? null : values.get(0);
        });
        InputStream body;
        try {
            body = new WatchedInputStream(response.body(), watch, response.statusCode() == 429);
        } catch (IOException e) {
            response.close();
            throw new UncheckedIOException(e);
        }
        return new HttpResponse() {
            @Override
            public int statusCode() {
                return response.statusCode();
            }

            @Override
            public Headers headers() {
                return headers;
            }

            @Override
            public InputStream body() {
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
        };
    }

    /** The body the limiter read, sent as it is (repeatable, so the SDK's retries may resend it). */
    private record BytesBody(byte[] bytes, String contentType) implements HttpRequestBody {
        @Override
        public void writeTo(OutputStream out) {
            try {
                out.write(bytes);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public long contentLength() {
            return bytes.length;
        }

        @Override
        public boolean repeatable() {
            return true;
        }

        @Override
        public void close() {
        }
    }
}
