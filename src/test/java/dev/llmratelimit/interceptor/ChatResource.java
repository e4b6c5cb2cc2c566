package dev.llmratelimit.interceptor;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/** JAX-RS resource methods of every return shape the interceptor reads usage from. */
@Path("/")
@RequestScoped
@Consumes(MediaType.APPLICATION_JSON)
@Produces(MediaType.APPLICATION_JSON)
public class ChatResource {

    static final String COMPLETION = "{\"id\":\"c1\",\"choices\":[],\"usage\":{\"prompt_tokens\":30,\"completion_tokens\":20,\"total_tokens\":50}}";
    static final String EVENTS = "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n"
            + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":8}}\n\n"
            + "data: [DONE]\n\n";

    @Inject
    ChatService service;

    @POST
    @Path("v1/chat/completions")
    @RateLimited
    public String guardedTwice(String body) {
        ChatService.CALLS.incrementAndGet();
        return COMPLETION;
    }

    @POST
    @Path("api/string")
    @RateLimited
    public String string(String body) {
        ChatService.CALLS.incrementAndGet();
        return COMPLETION;
    }

    @POST
    @Path("api/v1/messages")
    @RateLimited
    public String messages(String body) {
        ChatService.CALLS.incrementAndGet();
        return COMPLETION;
    }

    @POST
    @Path("api/response")
    @RateLimited
    public Response response(byte[] body) {
        return Response.ok(COMPLETION).header("x-app", "kept")
                .header("x-ratelimit-limit-tokens", "2000000").header("X-RateLimit-Reset-Tokens", "6ms").build();
    }

    @POST
    @Path("api/not-found")
    @RateLimited
    public Response notFound(String body) {
        return Response.status(404).entity(COMPLETION).build();
    }

    @POST
    @Path("api/stream-json")
    @RateLimited
    public StreamingOutput streamJson(String body) {
        return output -> {
            byte[] bytes = COMPLETION.getBytes(StandardCharsets.UTF_8);
            output.write(bytes, 0, 10);
            output.flush();
            output.write(bytes, 10, bytes.length - 10);
        };
    }

    @POST
    @Path("api/stream-sse")
    @RateLimited
    public Response streamSse(String body) {
        StreamingOutput events = output -> {
            for (String event : EVENTS.split("(?<=\n\n)")) {
                output.write(event.getBytes(StandardCharsets.UTF_8));
                output.flush();
            }
        };
        return Response.ok(events, "text/event-stream").build();
    }

    /** A stream cut before its usage: only the first event. */
    @POST
    @Path("api/stream-cut")
    @RateLimited
    public Response streamCut(String body) {
        StreamingOutput events = output -> output.write(EVENTS.substring(0, EVENTS.indexOf("\n\n") + 2)
                .getBytes(StandardCharsets.UTF_8));
        return Response.ok(events, "text/event-stream").build();
    }

    /** An Anthropic stream cut after its first text: {@code message_start} already reported the prompt (20,000 tokens). */
    static final String MESSAGES_CUT = """
            event: message_start
            data: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"usage":{"input_tokens":20000,"output_tokens":1}}}

            event: content_block_delta
            data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}

            """;

    @POST
    @Path("api/messages-stream-cut")
    @RateLimited
    public Response messagesStreamCut(String body) {
        StreamingOutput events = output -> output.write(MESSAGES_CUT.getBytes(StandardCharsets.UTF_8));
        return Response.ok(events, "text/event-stream").build();
    }

    @POST
    @Path("api/events")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @RateLimited
    public void events(String body, @Context SseEventSink sink, @Context Sse sse) {
        for (String event : EVENTS.split("\n\n")) {
            sink.send(sse.newEvent(event.substring("data: ".length())));
        }
        sink.close();
    }

    @POST
    @Path("api/models/{model}")
    @RateLimited
    public String named(@ModelName @PathParam("model") String model, String body) {
        return COMPLETION;
    }

    @POST
    @Path("api/nested")
    @RateLimited
    public String nested(String body) {
        return "{\"text\":\"" + service.complete(new ChatService.Prompt("nested", "hi")).text() + "\"}";
    }

    /** Not limited itself: the business bean it calls is. */
    @POST
    @Path("api/service/{model}")
    public String viaService(@PathParam("model") String model) {
        return "{\"text\":\"" + service.complete(new ChatService.Prompt(model, "hi")).text() + "\"}";
    }

    @POST
    @Path("api/service-map/{model}")
    public String viaServiceMap(@PathParam("model") String model) {
        service.complete(Map.<String, Object>of("model", model));
        return "{}";
    }

    @POST
    @Path("api/service-failing/{model}")
    public String failing(@PathParam("model") String model) {
        return service.failing(new ChatService.Prompt(model, "hi"));
    }
}
