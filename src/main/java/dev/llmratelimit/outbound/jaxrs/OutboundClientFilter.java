package dev.llmratelimit.outbound.jaxrs;

import dev.llmratelimit.outbound.OutboundExchange;
import dev.llmratelimit.outbound.OutboundLimiter;
import dev.llmratelimit.outbound.WatchedInputStream;
import jakarta.ws.rs.client.ClientRequestContext;
import jakarta.ws.rs.client.ClientRequestFilter;
import jakarta.ws.rs.client.ClientResponseContext;
import jakarta.ws.rs.client.ClientResponseFilter;
import jakarta.ws.rs.ext.WriterInterceptor;
import jakarta.ws.rs.ext.WriterInterceptorContext;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Optional;

/**
 * The limiter for JAX-RS clients, MicroProfile Rest Client included: register one instance
 * ({@code client.register(new OutboundClientFilter(limiter))}, or a subclass with a no-argument
 * constructor in {@code @RegisterProvider}). The request filter marks calls to a governed provider; the
 * writer interceptor sees the serialised body (whatever the entity type), waits for the call's place on
 * the sending thread and writes the body (with {@code include_usage} for a stream); the response filter
 * corrects the buckets from the answer's headers and settles the permit when the entity stream ends or is
 * closed.
 * <p>
 * A call that fails before any answer comes (no connection) never reaches the response filter: its permit
 * counts as its estimate until its lease ends.
 */
public class OutboundClientFilter implements ClientRequestFilter, ClientResponseFilter, WriterInterceptor {

    private static final String GOVERNED = OutboundClientFilter.class.getName() + ".governed";
    private static final String EXCHANGE = OutboundClientFilter.class.getName() + ".exchange";

    private final OutboundLimiter limiter;

    public OutboundClientFilter(OutboundLimiter limiter) {
        this.limiter = limiter;
    }

    @Override
    public void filter(ClientRequestContext request) {
        String url = request.getUri().toString();
        if (request.hasEntity() && limiter.providerFor(url).isPresent()) {
            request.setProperty(GOVERNED, url);
        }
    }

    @Override
    public void aroundWriteTo(WriterInterceptorContext context) throws IOException {
        Object url = context.getProperty(GOVERNED);
        if (url == null) {
            context.proceed();
            return;
        }
        OutputStream wire = context.getOutputStream();
        ByteArrayOutputStream serialised = new ByteArrayOutputStream();
        context.setOutputStream(serialised);
        context.proceed();
        Optional<OutboundExchange> governed = OutboundExchange.open(limiter, url.toString(), serialised.toByteArray());
        if (governed.isEmpty()) {
            serialised.writeTo(wire);
            return;
        }
        OutboundExchange exchange = governed.get();
        exchange.acquireForIo();
        context.setProperty(EXCHANGE, exchange);
        context.getHeaders().remove("Content-Length");
        wire.write(exchange.body());
        context.setOutputStream(wire);
    }

    @Override
    public void filter(ClientRequestContext request, ClientResponseContext response) throws IOException {
        if (!(request.getProperty(EXCHANGE) instanceof OutboundExchange exchange)) {
            return;
        }
        OutboundExchange.ResponseWatch watch = exchange.answered(response.getStatus(), response::getHeaderString);
        InputStream entity = response.hasEntity() ? response.getEntityStream() : InputStream.nullInputStream();
        response.setEntityStream(new WatchedInputStream(entity, watch, response.getStatus() == 429 || !response.hasEntity()));
    }
}
