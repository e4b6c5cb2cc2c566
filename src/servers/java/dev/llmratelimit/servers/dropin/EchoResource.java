package dev.llmratelimit.servers.dropin;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** A resource of the host application that knows nothing of the library: its JSON must not change. */
@Path("echo")
public class EchoResource {

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public ChatAnswer echo(ChatBody body) {
        return ChatAnswer.to(body);
    }
}
