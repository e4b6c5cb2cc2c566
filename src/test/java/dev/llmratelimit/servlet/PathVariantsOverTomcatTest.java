package dev.llmratelimit.servlet;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.Http;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.llmratelimit.testsupport.Policies.properties;

class PathVariantsOverTomcatTest {

    static final class Answering extends HttpServlet {
        final AtomicInteger served = new AtomicInteger();

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            request.getInputStream().readAllBytes();
            served.incrementAndGet();
            response.setContentType("application/json");
            response.getWriter().write("{\"id\":\"1\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":20,\"total_tokens\":30}}");
        }
    }

    @Test
    void explore() throws Exception {
        for (String mapping : new String[] {"/v1/chat/completions", "/v1/*", "/*"}) {
            Answering app = new Answering();
            try (FilterServer server = new FilterServer(RateLimitRuntime.create(properties("models.m.rpm=100"), null),
                    Map.of(), app, mapping)) {
                for (String path : new String[] {"/v1/chat/completions", "/v1/chat/completions/", "/v1/chat/completions;a=b",
                        "/v1;a=b/chat/completions", "/v1/chat/completions;a=b/", "/v1/chat/completions//", "/v1/chat//completions"}) {
                    int before = app.served.get();
                    HttpResponse<String> r = server.http().post(path, null, FilterServer.chat("m"));
                    System.out.println("EXPLORE " + mapping + " " + path + " -> " + r.statusCode() + " served="
                            + (app.served.get() - before) + " remaining=" + Http.header(r, "x-ratelimit-remaining-requests")
                            + " count=" + server.http().post("/v1/chat/completions", null, FilterServer.chat("m")).headers().firstValue("x-ratelimit-remaining-requests").orElse("-"));
                }
            }
        }
    }
}
