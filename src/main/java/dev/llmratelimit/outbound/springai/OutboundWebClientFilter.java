package dev.llmratelimit.outbound.springai;

import dev.llmratelimit.outbound.OutboundExchange;
import dev.llmratelimit.outbound.OutboundLimiter;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.client.reactive.ClientHttpRequest;
import org.springframework.http.client.reactive.ClientHttpRequestDecorator;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The limiter for Spring's {@code WebClient}, which Spring AI's OpenAI and Anthropic models stream through:
 * {@code webClientBuilder.filter(new OutboundWebClientFilter(limiter))}. The body is read as the client
 * writes it; a call to a governed provider then waits for its place without holding a thread (the
 * connection is open, nothing is sent yet; cancelling then gives the place back) and goes with its body
 * (with {@code include_usage} for a chat stream). The answer's headers correct the buckets; its body settles the permit as it ends, is cancelled
 * or fails, and a 429's body is read at once so its pause applies even if nobody reads it. A refused call
 * fails with {@link dev.llmratelimit.outbound.OutboundLimitException} before anything is sent.
 */
public final class OutboundWebClientFilter implements ExchangeFilterFunction {

    private final OutboundLimiter limiter;

    public OutboundWebClientFilter(OutboundLimiter limiter) {
        this.limiter = limiter;
    }

    @Override
    public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
        String url = request.url().toString();
        if (limiter.providerFor(url).isEmpty()) {
            return next.exchange(request);
        }
        AtomicReference<CompletableFuture<Void>> waiting = new AtomicReference<>();
        AtomicBoolean answered = new AtomicBoolean();
        AtomicReference<OutboundExchange> governed = new AtomicReference<>();
        ClientRequest limited = ClientRequest.from(request)
                .body((message, context) -> request.body().insert(new Acquiring(message, url, waiting, governed), context))
                .build();
        return next.exchange(limited)
                .doOnError(failure -> {
                    OutboundExchange exchange = governed.get();
                    if (exchange != null) {
                        exchange.failed(failure);
                    }
                })
                .doOnNext(response -> answered.set(true))
                .doOnCancel(() -> {
                    if (answered.get()) {
                        return;     // the client cancels the answer's source once it has the answer
                    }
                    // the client goes on writing the body when the caller cancels: stop the wait here
                    CompletableFuture<Void> placing = waiting.get();
                    if (placing != null) {
                        placing.cancel(false);
                    }
                    // sent, and abandoned before the answer came: the provider may count it
                    OutboundExchange exchange = governed.get();
                    if (exchange != null) {
                        exchange.failed(new CancellationException("The caller cancelled the call"));
                    }
                })
                .flatMap(response -> {
                    OutboundExchange exchange = governed.get();
                    return exchange == null ? Mono.just(response) : watched(exchange, response);
                });
    }

    private static Mono<ClientResponse> watched(OutboundExchange exchange, ClientResponse response) {
        int status = response.statusCode().value();
        OutboundExchange.ResponseWatch watch = exchange.answered(status, response.headers().asHttpHeaders()::getFirst);
        if (status == 429) {
            return DataBufferUtils.join(response.bodyToFlux(DataBuffer.class))
                    .map(OutboundWebClientFilter::bytes)
                    .defaultIfEmpty(new byte[0])
                    .map(bytes -> {
                        byte[] passed = passOn(watch, bytes, true);
                        return response.mutate().body(Flux.just(wrap(passed))).build();
                    })
                    .doOnCancel(watch::cut)
                    .doOnError(failure -> watch.cut());
        }
        return Mono.just(response.mutate().body(body -> Flux.concat(
                        body.map(buffer -> wrap(passOn(watch, bytes(buffer), false))),
                        Mono.fromSupplier(() -> wrap(passOn(watch, new byte[0], true))))
                .filter(buffer -> buffer.readableByteCount() > 0)
                .doOnCancel(watch::cut)
                .doOnError(failure -> watch.cut()))
                .build());
    }

    /** What the watch passes on of these bytes (and of what it held back, at the end). */
    private static byte[] passOn(OutboundExchange.ResponseWatch watch, byte[] bytes, boolean end) {
        ByteArrayOutputStream passed = new ByteArrayOutputStream();
        try {
            watch.write(bytes, 0, bytes.length, passed);
            if (end) {
                watch.end(passed);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return passed.toByteArray();
    }

    private static DataBuffer wrap(byte[] bytes) {
        return DefaultDataBufferFactory.sharedInstance.wrap(bytes);
    }

    private static byte[] bytes(DataBuffer buffer) {
        try {
            byte[] bytes = new byte[buffer.readableByteCount()];
            buffer.read(bytes);
            return bytes;
        } finally {
            DataBufferUtils.release(buffer);
        }
    }

    /** The request as the client writes it: its body is read whole, the call's place awaited, then it is sent. */
    private final class Acquiring extends ClientHttpRequestDecorator {

        private final String url;
        private final AtomicReference<CompletableFuture<Void>> waiting;
        private final AtomicReference<OutboundExchange> governed;

        Acquiring(ClientHttpRequest delegate, String url, AtomicReference<CompletableFuture<Void>> waiting,
                  AtomicReference<OutboundExchange> governed) {
            super(delegate);
            this.url = url;
            this.waiting = waiting;
            this.governed = governed;
        }

        @Override
        public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
            return DataBufferUtils.join(body).map(OutboundWebClientFilter::bytes).defaultIfEmpty(new byte[0])
                    .flatMap(bytes -> {
                        Optional<OutboundExchange> exchange = OutboundExchange.open(limiter, url, bytes);
                        if (exchange.isEmpty()) {
                            return send(bytes);
                        }
                        CompletableFuture<Void> placing = exchange.get().acquireAsync();
                        waiting.set(placing);
                        return Mono.fromFuture(placing).then(Mono.defer(() -> {
                            governed.set(exchange.get());
                            return send(exchange.get().body());
                        }));
                    });
        }

        private Mono<Void> send(byte[] bytes) {
            getHeaders().setContentLength(bytes.length);
            return super.writeWith(Mono.just(bufferFactory().wrap(bytes)));
        }
    }
}
