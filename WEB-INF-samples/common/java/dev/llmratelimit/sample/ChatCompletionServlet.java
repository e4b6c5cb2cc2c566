package dev.llmratelimit.sample;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/**
 * Stands for the application's existing chat-completion endpoint: answers OpenAI-style JSON with
 * {@code usage}, or an SSE stream whose last chunk carries {@code usage} when the request asked for
 * it ({@code stream_options.include_usage}, which the rate-limit filter adds). The reply greets the
 * authenticated caller, so a deployment shows which principal the server passed on.
 *
 * <p>A JSON answer uses 20 prompt + 10 completion tokens, a stream 12 + 3.
 */
public class ChatCompletionServlet extends HttpServlet {

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String body = new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String model = stringField(body, "model");
        String greeting = "Hello " + request.getUserPrincipal().getName();
        if (body.replace(" ", "").contains("\"stream\":true")) {
            stream(response, model, greeting, body.replace(" ", "").contains("\"include_usage\":true"));
        } else {
            response.setContentType("application/json");
            response.getWriter().write("{\"id\":\"chatcmpl-sample\",\"object\":\"chat.completion\",\"model\":\"" + model
                    + "\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"" + greeting
                    + "\"},\"finish_reason\":\"stop\"}],"
                    + "\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":10,\"total_tokens\":30}}");
        }
    }

    private static void stream(HttpServletResponse response, String model, String greeting, boolean includeUsage)
            throws IOException {
        response.setContentType("text/event-stream");
        response.setCharacterEncoding("UTF-8");
        PrintWriter out = response.getWriter();
        String prefix = "data: {\"id\":\"chatcmpl-sample\",\"object\":\"chat.completion.chunk\",\"model\":\"" + model + "\",";
        out.write(prefix + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"" + greeting
                + "\"},\"finish_reason\":null}]}\n\n");
        out.flush();
        out.write(prefix + "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n");
        if (includeUsage) {
            out.write(prefix + "\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":3,\"total_tokens\":15}}\n\n");
        }
        out.write("data: [DONE]\n\n");
        out.flush();
    }

    /** The value of a top-level string field; enough for a sample that only echoes the model. */
    private static String stringField(String json, String name) {
        int key = json.indexOf("\"" + name + "\"");
        int open = key < 0 ? -1 : json.indexOf('"', json.indexOf(':', key) + 1);
        int close = open < 0 ? -1 : json.indexOf('"', open + 1);
        return close < 0 ? "" : json.substring(open + 1, close);
    }
}
