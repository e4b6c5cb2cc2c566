package dev.llmratelimit.outbound.openai;

import com.openai.core.RequestOptions;
import com.openai.core.http.Headers;
import com.openai.core.http.HttpClient;
import com.openai.core.http.HttpRequest;
import com.openai.core.http.HttpRequestBody;
import com.openai.core.http.HttpResponse;
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
 * The official OpenAI Java SDK's HTTP client hook: wraps the SDK's transport so that each HTTP attempt,
 * the SDK's own retries included, acquires its place first and settles it from the answer.
 * <pre>{@code
 * OpenAIClient client = new OpenAIClientImpl(ClientOptions.builder()
 *         .httpClient(LimitedOpenAiHttpClient.wrap(OkHttpClient.builder().build(), limiter))
 *         .baseUrl("https://api.openai.com/v1").apiKey(key).build());
 * }</pre>
 * A refused call fails with {@link dev.llmratelimit.outbound.OutboundLimitException} before anything is
 * sent (the SDK does not retry it).
 */
public final class LimitedOpenAiHttpClient implements HttpClient {

    private static final String SDK_PACKAGE = "com.openai.";

    private final HttpClient delegate;
    private final OutboundLimiter limiter;

    private LimitedOpenAiHttpClient(HttpClient delegate, OutboundLimiter limiter) {
        this.delegate = delegate;
        this.limiter = limiter;
    }

    public static HttpClient wrap(HttpClient delegate, OutboundLimiter limiter) {
        return new LimitedOpenAiHttpClient(delegate, limiter);
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
        HttpRequestBody body = request.body();
        if (body == null) {
            return Optional.empty();
        }
        String url = url(request);
        if (limiter.providerFor(url).isEmpty()) {
            return Optional.empty();
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        body.writeTo(bytes);
        return OutboundExchange.open(limiter, url, bytes.toByteArray());
    }

    private static String url(HttpRequest request) {
        String base = request.baseUrl();
        StringBuilder url = new StringBuilder(base.endsWith("/") ? base.substring(0, base.length() - 1) : base);
        for (String segment : request.pathSegments()) {
            url.append('/').append(segment);
        }
        return url.toString();
    }

    private static HttpRequest withBody(HttpRequest request, byte[] body) {
        String contentType = request.body().contentType();
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
