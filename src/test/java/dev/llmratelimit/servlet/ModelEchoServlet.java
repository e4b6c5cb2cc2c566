package dev.llmratelimit.servlet;

import dev.llmratelimit.chat.ChatRequest;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Answers every chat request with 30 tokens of usage and the model it was asked for; keeps what it received. */
final class ModelEchoServlet extends HttpServlet {

    /** The bodies received, in arrival order. */
    final List<String> received = new CopyOnWriteArrayList<>();
    /** The principals served, in arrival order. */
    final List<String> callers = new CopyOnWriteArrayList<>();

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        byte[] body = request.getInputStream().readAllBytes();
        received.add(new String(body, StandardCharsets.UTF_8));
        callers.add(request.getUserPrincipal() == null ? "-" : request.getUserPrincipal().getName());
        String model;
        try {
            model = ChatRequest.parse(body, body.length).model();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        byte[] answer = ("{\"id\":\"1\",\"model\":\"" + model + "\",\"choices\":[],"
                + ScriptedChatServlet.USAGE_30 + "}").getBytes(StandardCharsets.UTF_8);
        response.setContentType("application/json");
        response.setContentLength(answer.length);
        response.getOutputStream().write(answer);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/plain");
        response.getWriter().write("other path");
    }
}
