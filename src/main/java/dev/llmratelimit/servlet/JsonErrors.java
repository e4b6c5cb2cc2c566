package dev.llmratelimit.servlet;

import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** Writes OpenAI-compatible error bodies: {@code {"error":{"message":..,"type":..,"param":null,"code":..}}}. */
final class JsonErrors {

    static final String INVALID_REQUEST = "invalid_request_error";
    static final String THROTTLING = "throttling_error";

    private JsonErrors() {
    }

    static void write(HttpServletResponse response, int status, String type, String code, String message)
            throws IOException {
        byte[] body = body(type, code, message).getBytes(StandardCharsets.UTF_8);
        response.setStatus(status);
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        response.setContentLength(body.length);
        OutputStream out = response.getOutputStream();
        out.write(body);
        out.flush();
    }

    static String body(String type, String code, String message) {
        return "{\"error\":{\"message\":" + quote(message) + ",\"type\":" + quote(type)
                + ",\"param\":null,\"code\":" + quote(code) + "}}";
    }

    static String quote(String text) {
        StringBuilder quoted = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                case '\n' -> quoted.append("\\n");
                case '\r' -> quoted.append("\\r");
                case '\t' -> quoted.append("\\t");
                default -> {
                    if (c < 0x20) {
                        quoted.append(String.format("\\u%04x", (int) c));
                    } else {
                        quoted.append(c);
                    }
                }
            }
        }
        return quoted.append('"').toString();
    }
}
