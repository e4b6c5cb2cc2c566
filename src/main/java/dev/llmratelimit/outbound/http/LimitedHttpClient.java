package dev.llmratelimit.outbound.http;

import dev.llmratelimit.outbound.OutboundExchange;
import dev.llmratelimit.outbound.OutboundLimiter;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * A {@link HttpClient} whose calls to a governed provider ({@code base-url}) wait for room in the
 * provider's buckets first, and whose answers settle them: {@code send} waits on the calling thread,
 * {@code sendAsync} without one. Other calls, and calls whose body names no model, go straight through.
 * <pre>{@code HttpClient http = LimitedHttpClient.wrap(HttpClient.newHttpClient(), limiter);}</pre>
 * A refused call fails with {@link dev.llmratelimit.outbound.OutboundLimitException} (for
 * {@code sendAsync}, the future does) before anything is sent.
 */
public final class LimitedHttpClient extends HttpClient {

    private final HttpClient delegate;
    private final OutboundLimiter limiter;

    private LimitedHttpClient(HttpClient delegate, OutboundLimiter limiter) {
        this.delegate = delegate;
        this.limiter = limiter;
    }

    public static HttpClient wrap(HttpClient delegate, OutboundLimiter limiter) {
        return new LimitedHttpClient(delegate, limiter);
    }

    @Override
    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws IOException, InterruptedException {
        Optional<OutboundExchange> governed = exchange(request);
        if (governed.isEmpty()) {
            return delegate.send(request, handler);
        }
        OutboundExchange exchange = governed.get();
        exchange.acquire();
        try {
            return delegate.send(withBody(request, exchange.body()), new WatchingHandler<>(exchange, handler));
        } catch (IOException | RuntimeException e) {
            exchange.failed(e);
            throw e;
        } catch (InterruptedException e) {
            exchange.failed(e);
            throw e;
        }
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        return sendAsync(request, handler, null);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler,
                                                            HttpResponse.PushPromiseHandler<T> pushPromiseHandler) {
        Optional<OutboundExchange> governed;
        try {
            governed = exchange(request);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (governed.isEmpty()) {
            return delegate.sendAsync(request, handler, pushPromiseHandler);
        }
        OutboundExchange exchange = governed.get();
        return exchange.acquireAsync().thenCompose(placed -> delegate
                .sendAsync(withBody(request, exchange.body()), new WatchingHandler<>(exchange, handler), pushPromiseHandler)
                .whenComplete((response, failure) -> {
                    if (failure != null && response == null) {
                        exchange.failed(failure instanceof CompletionException && failure.getCause() != null
                                ? failure.getCause() : failure);
                    }
                }));
    }

    private Optional<OutboundExchange> exchange(HttpRequest request) throws IOException {
        if (request.bodyPublisher().isEmpty() || limiter.providerFor(request.uri().toString()).isEmpty()) {
            return Optional.empty();
        }
        return OutboundExchange.open(limiter, request.uri().toString(), BodyBytes.of(request.bodyPublisher().get()));
    }

    private static HttpRequest withBody(HttpRequest request, byte[] body) {
        return HttpRequest.newBuilder(request, (name, value) -> true)
                .method(request.method(), HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
    }

    @Override
    public Optional<CookieHandler> cookieHandler() {
        return delegate.cookieHandler();
    }

    @Override
    public Optional<Duration> connectTimeout() {
        return delegate.connectTimeout();
    }

    @Override
    public Redirect followRedirects() {
        return delegate.followRedirects();
    }

    @Override
    public Optional<ProxySelector> proxy() {
        return delegate.proxy();
    }

    @Override
    public SSLContext sslContext() {
        return delegate.sslContext();
    }

    @Override
    public SSLParameters sslParameters() {
        return delegate.sslParameters();
    }

    @Override
    public Optional<Authenticator> authenticator() {
        return delegate.authenticator();
    }

    @Override
    public Version version() {
        return delegate.version();
    }

    @Override
    public Optional<Executor> executor() {
        return delegate.executor();
    }
}
