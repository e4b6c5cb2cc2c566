package dev.llmratelimit.outbound;

import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * One limited attempt through the transport of an official provider SDK (OpenAI's and Anthropic's Java
 * SDKs have the same shape with their own types, so each SDK's client hands its steps in): the place is
 * acquired before sending, a failure to send is told to the exchange (looking through the SDK's wrapping
 * exceptions), and the answer is watched.
 */
public final class SdkAttempts {

    private SdkAttempts() {
    }

    /**
     * @param send       sends the request with the body the limiter read
     * @param watched    the answer whose headers and body the exchange watches
     * @param sdkPackage the SDK's package prefix ({@code "com.openai."}): its exceptions wrap the cause
     */
    public static <R> R execute(OutboundExchange exchange, Supplier<R> send, UnaryOperator<R> watched, String sdkPackage) {
        try {
            exchange.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for room at the provider", e);
        }
        R response;
        try {
            response = send.get();
        } catch (RuntimeException e) {
            exchange.failed(rootCause(e, sdkPackage));
            throw e;
        }
        return watched.apply(response);
    }

    /** {@link #execute} without blocking: the place is waited for, then the request sent. */
    public static <R> CompletableFuture<R> executeAsync(OutboundExchange exchange, Supplier<CompletableFuture<R>> send,
                                                        UnaryOperator<R> watched, String sdkPackage) {
        return exchange.acquireAsync()
                .thenCompose(placed -> sent(send).whenComplete((response, failure) -> {
                    if (failure != null) {
                        exchange.failed(rootCause(failure, sdkPackage));
                    }
                }))
                .thenApply(watched);
    }

    /** What the send started, or its failure to start: either way the exchange hears of a failure. */
    private static <R> CompletableFuture<R> sent(Supplier<CompletableFuture<R>> send) {
        try {
            return send.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static Throwable rootCause(Throwable failure, String sdkPackage) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof UncheckedIOException
                || cause.getClass().getName().startsWith(sdkPackage)) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
