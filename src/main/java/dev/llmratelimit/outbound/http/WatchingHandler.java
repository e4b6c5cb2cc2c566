package dev.llmratelimit.outbound.http;

import dev.llmratelimit.outbound.OutboundExchange;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Hands the caller's body handler a subscriber that first passes every buffer through the exchange's
 * {@link OutboundExchange.ResponseWatch}: the answer's headers correct the buckets, its body settles
 * the permit when it ends, or when the caller cancels it, or when it fails.
 */
final class WatchingHandler<T> implements HttpResponse.BodyHandler<T> {

    private final OutboundExchange exchange;
    private final HttpResponse.BodyHandler<T> handler;

    WatchingHandler(OutboundExchange exchange, HttpResponse.BodyHandler<T> handler) {
        this.exchange = exchange;
        this.handler = handler;
    }

    @Override
    public HttpResponse.BodySubscriber<T> apply(HttpResponse.ResponseInfo info) {
        OutboundExchange.ResponseWatch watch = exchange.answered(info.statusCode(),
                name -> info.headers().firstValue(name.toLowerCase(Locale.ROOT)).orElse(null));
        return new WatchingSubscriber<>(watch, handler.apply(info));
    }

    private static final class WatchingSubscriber<T> implements HttpResponse.BodySubscriber<T> {

        private final OutboundExchange.ResponseWatch watch;
        private final HttpResponse.BodySubscriber<T> downstream;
        private final ByteArrayOutputStream passed = new ByteArrayOutputStream();

        WatchingSubscriber(OutboundExchange.ResponseWatch watch, HttpResponse.BodySubscriber<T> downstream) {
            this.watch = watch;
            this.downstream = downstream;
        }

        @Override
        public CompletionStage<T> getBody() {
            return downstream.getBody();
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            downstream.onSubscribe(new Flow.Subscription() {
                @Override
                public void request(long n) {
                    subscription.request(n);
                }

                @Override
                public void cancel() {
                    watch.cut();
                    subscription.cancel();
                }
            });
        }

        @Override
        public void onNext(List<ByteBuffer> items) {
            try {
                for (ByteBuffer item : items) {
                    byte[] chunk = new byte[item.remaining()];
                    item.get(chunk);
                    watch.write(chunk, 0, chunk.length, passed);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            // Always hand on a list (perhaps empty): the downstream subscriber asked for one item.
            downstream.onNext(List.of(drain()));
        }

        @Override
        public void onError(Throwable throwable) {
            watch.cut();
            downstream.onError(throwable);
        }

        @Override
        public void onComplete() {
            try {
                watch.end(passed);
            } catch (IOException e) {
                downstream.onError(e);
                return;
            }
            ByteBuffer rest = drain();
            if (rest.hasRemaining()) {
                downstream.onNext(List.of(rest));
            }
            downstream.onComplete();
        }

        private ByteBuffer drain() {
            ByteBuffer buffer = ByteBuffer.wrap(passed.toByteArray());
            passed.reset();
            return buffer;
        }
    }
}
