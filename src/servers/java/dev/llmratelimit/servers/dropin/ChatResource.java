package dev.llmratelimit.servers.dropin;

import dev.llmratelimit.interceptor.RateLimited;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;

import java.nio.charset.StandardCharsets;

/** {@link RateLimited} JAX-RS methods with JSON-B bodies, as the developer wrote them. */
@Path("chat")
@RequestScoped
@Consumes(MediaType.APPLICATION_JSON)
public class ChatResource {

    /** The one chunk a cut stream sends before it breaks off: no usage, no {@code [DONE]}. */
    public static final String CUT_CHUNK = "data: {\"choices\":[{\"delta\":{\"content\":\"Hello there, general\"}}]}\n\n";

    @Inject
    TransactionalChat transactional;

    @POST
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimited
    public ChatAnswer complete(ChatBody body) {
        return ChatAnswer.to(body);
    }

    /** The same answer as a {@code Response}, which carries the limit's headers. */
    @POST
    @Path("response")
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimited
    public Response completeAsResponse(ChatBody body) {
        return Response.ok(ChatAnswer.to(body)).build();
    }

    @POST
    @Path("stream-cut")
    @RateLimited
    public Response streamCut(ChatBody body) {
        StreamingOutput events = output -> output.write(CUT_CHUNK.getBytes(StandardCharsets.UTF_8));
        return Response.ok(events, "text/event-stream").build();
    }

    @POST
    @Path("transactional")
    @Produces(MediaType.APPLICATION_JSON)
    public ChatAnswer transactional(ChatBody body) {
        return transactional.complete(body);
    }
}
