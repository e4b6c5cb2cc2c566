package dev.llmratelimit.observe;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** A chat endpoint whose every answer reports 10 prompt and 20 completion tokens. */
final class UsageServlet extends HttpServlet {

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        request.getInputStream().readAllBytes();
        response.setContentType("application/json");
        response.getOutputStream().write(("{\"id\":\"1\",\"object\":\"chat.completion\",\"choices\":[],"
                + "\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":20,\"total_tokens\":30}}")
                .getBytes(StandardCharsets.UTF_8));
    }
}
