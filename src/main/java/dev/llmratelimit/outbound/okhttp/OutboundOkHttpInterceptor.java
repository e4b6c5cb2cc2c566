package dev.llmratelimit.outbound.okhttp;

import dev.llmratelimit.outbound.OutboundExchange;
import dev.llmratelimit.outbound.OutboundLimiter;
import dev.llmratelimit.outbound.WatchedInputStream;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.Buffer;
import okio.Okio;

import java.io.IOException;
import java.util.Optional;

/**
 * The limiter for an OkHttp client: what Spring AI 2's OpenAI models call through (the official OpenAI
 * SDK on OkHttp), {@code new OkHttpClient.Builder().addInterceptor(new OutboundOkHttpInterceptor(limiter))}.
 * A call to a governed provider waits for its place on the thread OkHttp runs it on (the caller's for a
 * blocking call, a dispatcher thread for an asynchronous one), then goes with its body (with
 * {@code include_usage} for a chat stream); the answer's headers correct the buckets and its body settles
 * the permit when it is read to the end or closed. A refused call fails with
 * {@link dev.llmratelimit.outbound.OutboundLimitException} before anything is sent.
 */
public final class OutboundOkHttpInterceptor implements Interceptor {

    private final OutboundLimiter limiter;

    public OutboundOkHttpInterceptor(OutboundLimiter limiter) {
        this.limiter = limiter;
    }

    @Override
    public Response intercept(Chain chain) throws IOException {
        Request request = chain.request();
        String url = request.url().toString();
        RequestBody requestBody = request.body();
        if (requestBody == null || limiter.providerFor(url).isEmpty()) {
            return chain.proceed(request);
        }
        byte[] body = bytesOf(requestBody);
        Optional<OutboundExchange> governed = OutboundExchange.open(limiter, url, body);
        if (governed.isEmpty()) {
            return chain.proceed(withBody(request, body));
        }
        OutboundExchange exchange = governed.get();
        exchange.acquireForIo();
        Response response;
        try {
            response = chain.proceed(withBody(request, exchange.body()));
        } catch (IOException | RuntimeException e) {
            exchange.failed(e);
            throw e;
        }
        int status = response.code();
        OutboundExchange.ResponseWatch watch = exchange.answered(status, response::header);
        ResponseBody answer = response.body();
        WatchedInputStream watched = new WatchedInputStream(answer.byteStream(), watch, status == 429);
        // the length is left open: a stream's added usage event is taken out on the way
        return response.newBuilder()
                .body(ResponseBody.create(Okio.buffer(Okio.source(watched)), answer.contentType(), -1))
                .build();
    }

    private static byte[] bytesOf(RequestBody body) throws IOException {
        Buffer buffer = new Buffer();
        body.writeTo(buffer);
        return buffer.readByteArray();
    }

    private static Request withBody(Request request, byte[] body) {
        return request.newBuilder().method(request.method(), RequestBody.create(body, request.body().contentType())).build();
    }
}
