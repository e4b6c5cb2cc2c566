package dev.llmratelimit.interceptor.jaxrs;

import dev.llmratelimit.http.ErrorResponse;
import dev.llmratelimit.interceptor.RateLimitRefusalException;
import dev.llmratelimit.usage.EndpointShape;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Answers a refused {@code @RateLimited} call exactly as the filter does: for a rate limit the 429 of
 * docs/errors.md with {@code retry-after}, {@code x-ratelimit-*} headers and an OpenAI-compatible body
 * (UTF-8 bytes, {@code Content-Type: application/json} like the filter's); for a resource whose path
 * ends in {@code /messages} (Anthropic's Messages API) Anthropic's body, and each limit's figures
 * also under Anthropic's {@code anthropic-ratelimit-*} names.
 * Discovered as a {@link Provider} by annotation scanning, or registered by the application. Only
 * JAX-RS ever loads it, so the jar still deploys where there is no JAX-RS.
 */
@Provider
public class RateLimitExceptionMapper implements ExceptionMapper<RateLimitRefusalException> {

    /** The request being answered; {@code null} where the mapper is called outside a JAX-RS request. */
    @Context
    private UriInfo uri;

    @Override
    public Response toResponse(RateLimitRefusalException exception) {
        ErrorResponse error = exception.errorResponse();
        if (uri != null && EndpointShape.ofPath("/" + uri.getPath()) == EndpointShape.MESSAGES) {
            error = error.forShape(EndpointShape.MESSAGES);
        }
        Response.ResponseBuilder response = Response.status(error.status());
        for (Map.Entry<String, String> header : error.headers().entrySet()) {
            response.header(header.getKey(), header.getValue());
        }
        return response.type(ErrorResponse.CONTENT_TYPE).entity(error.body().getBytes(StandardCharsets.UTF_8)).build();
    }
}
