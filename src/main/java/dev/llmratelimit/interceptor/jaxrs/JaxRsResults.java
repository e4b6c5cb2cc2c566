package dev.llmratelimit.interceptor.jaxrs;

import dev.llmratelimit.http.RateLimitHeaderValues;
import dev.llmratelimit.interceptor.AdmittedCall;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import jakarta.ws.rs.sse.SseEventSink;

/**
 * The JAX-RS return values of a {@code @RateLimited} method: a {@link Response} (its entity carries the
 * usage; a non-2xx answer records none; the {@code x-ratelimit-*} headers are added) and a
 * {@link StreamingOutput}, alone or as a response's entity, whose usage is recorded as it is written;
 * and the {@link SseEventSink} argument of a method that streams server-sent events. Loaded only where
 * the JAX-RS API is present.
 */
public final class JaxRsResults {

    private JaxRsResults() {
    }

    /**
     * Replaces an {@link SseEventSink} argument by one that records the usage of the events sent and
     * finishes the call when closed.
     *
     * @return whether the call streams events (and so finishes when the sink closes, not on return)
     */
    public static boolean recordEventSink(Object[] arguments, AdmittedCall call) {
        for (int i = 0; i < arguments.length; i++) {
            if (arguments[i] instanceof SseEventSink sink) {
                arguments[i] = new UsageRecordingEventSink(sink, call);
                return true;
            }
        }
        return false;
    }

    public static boolean handles(Object result) {
        return result instanceof Response || result instanceof StreamingOutput;
    }

    /** Finishes {@code call} now, or wraps the streamed body so that it finishes once written. */
    public static Object settle(Object result, AdmittedCall call) {
        if (result instanceof StreamingOutput output) {
            return new UsageRecordingOutput(output, call);
        }
        Response response = (Response) result;
        if (response.getStatusInfo().getFamily() != Response.Status.Family.SUCCESSFUL) {
            call.abort();
            return response;
        }
        Response.ResponseBuilder admitted = Response.fromResponse(response);
        // As in the filter: the limiter's x-ratelimit-* headers replace the application's, none are mixed.
        for (String name : response.getHeaders().keySet()) {
            if (RateLimitHeaderValues.isRateLimitHeader(name)) {
                admitted.header(name, null);
            }
        }
        RateLimitHeaderValues.forwarded(call.admission(), admitted::header);
        if (response.getEntity() instanceof StreamingOutput output) {
            admitted.entity(new UsageRecordingOutput(output, call));
        } else {
            call.finish(response.getEntity());
        }
        return admitted.build();
    }
}
