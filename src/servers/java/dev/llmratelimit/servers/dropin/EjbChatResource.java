package dev.llmratelimit.servers.dropin;

import dev.llmratelimit.interceptor.RateLimited;
import jakarta.ejb.Stateless;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** A {@code @Stateless} resource: each call runs in a container-managed transaction. */
@Stateless
@Path("ejb")
public class EjbChatResource {

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimited
    public ChatAnswer complete(ChatBody body) {
        return ChatAnswer.to(body);
    }
}
