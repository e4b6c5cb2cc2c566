package dev.llmratelimit.outbound.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;

/** Collects a request's body from its publisher (the in-memory publishers answer at once). */
final class BodyBytes {

    /** A chat request is small; a body above this is sent ungoverned rather than held in memory. */
    static final int MAX_BYTES = 16 * 1024 * 1024;

    private BodyBytes() {
    }

    /** The bytes, or {@code null} when the body is larger than {@link #MAX_BYTES}. */
    static byte[] of(HttpRequest.BodyPublisher publisher) throws IOException {
        CompletableFuture<byte[]> result = new CompletableFuture<>();
        publisher.subscribe(new Flow.Subscriber<>() {
            private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            private Flow.Subscription subscription;

            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                this.subscription = subscription;
                subscription.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(ByteBuffer item) {
                if (bytes.size() + item.remaining() > MAX_BYTES) {
                    subscription.cancel();
                    result.complete(null);
                    return;
                }
                byte[] chunk = new byte[item.remaining()];
                item.get(chunk);
                bytes.writeBytes(chunk);
            }

            @Override
            public void onError(Throwable throwable) {
                result.completeExceptionally(throwable);
            }

            @Override
            public void onComplete() {
                result.complete(bytes.toByteArray());
            }
        });
        try {
            return result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted while reading the request body", e);
        } catch (ExecutionException e) {
            throw new IOException("Cannot read the request body", e.getCause());
        }
    }
}
