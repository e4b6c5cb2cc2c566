package dev.llmratelimit.servers.dropin;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** An OpenAI-compatible path, limited by the web-fragment's filter (no annotation). */
@Path("v1/chat/completions")
public class OpenAiResource {

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public String complete(String body) {
        return "{\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":20}}";
    }
}
