package dev.llmratelimit.servlet;

import dev.llmratelimit.http.ErrorResponse;
import dev.llmratelimit.http.OpenAiErrors;
import dev.llmratelimit.usage.EndpointShape;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** Writes error answers ({@link ErrorResponse}) to a servlet response. */
final class JsonErrors {

    static final String INVALID_REQUEST = OpenAiErrors.INVALID_REQUEST;

    private JsonErrors() {
    }

    static void write(HttpServletResponse response, int status, String type, String code, String message)
            throws IOException {
        write(response, ErrorResponse.of(status, type, code, message));
    }

    /** An error in the body shape of the endpoint ({@link ErrorResponse#forShape}). */
    static void write(HttpServletResponse response, EndpointShape shape, int status, String type, String code,
                      String message) throws IOException {
        write(response, ErrorResponse.of(status, type, code, message).forShape(shape));
    }

    static void write(HttpServletResponse response, ErrorResponse error) throws IOException {
        for (Map.Entry<String, String> header : error.headers().entrySet()) {
            response.setHeader(header.getKey(), header.getValue());
        }
        byte[] body = error.body().getBytes(StandardCharsets.UTF_8);
        response.setStatus(error.status());
        response.setContentType(ErrorResponse.CONTENT_TYPE);
        response.setCharacterEncoding("UTF-8");
        response.setContentLength(body.length);
        OutputStream out = response.getOutputStream();
        out.write(body);
        out.flush();
    }
}
