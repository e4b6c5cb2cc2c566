package dev.llmratelimit.demo;

import dev.llmratelimit.outbound.OutboundLimitException;
import dev.llmratelimit.outbound.OutboundLimiter;
import dev.llmratelimit.outbound.OutboundLimiters;
import dev.llmratelimit.outbound.http.LimitedHttpClient;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * With {@code demo.upstream.url} set, the demo's chat endpoint forwards each request (the filter in front
 * has admitted it) to that OpenAI-compatible upstream through the client-side limiter, and passes the
 * answer back as it comes, streams included. The limiter's provider is whichever
 * {@code llm.ratelimit.outbound.<provider>.base-url} governs the URL, else one named {@code upstream}
 * ({@code llm.ratelimit.outbound.upstream.rpm=...}). {@code demo.upstream.api-key} is sent as the bearer token.
 */
final class ForwardingChatServlet extends HttpServlet {

    private static final String[] PASSED_HEADERS = {"content-type", "x-request-id",
        "x-ratelimit-remaining-requests", "x-ratelimit-remaining-tokens"};

    private final String upstream;
    private final String apiKey;
    private final transient OutboundLimiter limiter;
    private final transient HttpClient http;

    ForwardingChatServlet(String upstreamUrl, String apiKey, Map<String, String> properties) {
        this.upstream = upstreamUrl.endsWith("/") ? upstreamUrl.substring(0, upstreamUrl.length() - 1) : upstreamUrl;
        this.apiKey = apiKey;
        Map<String, String> withUpstream = new HashMap<>(properties);
        boolean governed = properties.entrySet().stream().anyMatch(property ->
                property.getKey().startsWith(OutboundLimiters.PREFIX) && property.getKey().endsWith(".base-url")
                        && upstream.startsWith(property.getValue().trim().replaceAll("/+$", "")));
        if (!governed) {
            withUpstream.put(OutboundLimiters.PREFIX + "upstream.base-url", upstream);
        }
        this.limiter = OutboundLimiters.fromProperties(withUpstream);
        this.http = LimitedHttpClient.wrap(HttpClient.newHttpClient(), limiter);
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        byte[] body = request.getInputStream().readAllBytes();
        HttpRequest.Builder call = HttpRequest.newBuilder(URI.create(upstream + "/chat/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (apiKey != null && !apiKey.isBlank()) {
            call.header("Authorization", "Bearer " + apiKey);
        }
        HttpResponse<InputStream> answer;
        try {
            answer = http.send(call.build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (OutboundLimitException e) {
            refuse(response, e);
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            response.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
            return;
        }
        response.setStatus(answer.statusCode());
        for (String name : PASSED_HEADERS) {
            answer.headers().firstValue(name).ifPresent(value -> response.setHeader(name, value));
        }
        try (InputStream in = answer.body()) {
            OutputStream out = response.getOutputStream();
            byte[] buffer = new byte[8192];
            for (int n; (n = in.read(buffer)) >= 0; ) {
                out.write(buffer, 0, n);
                out.flush();
            }
        }
    }

    /** The upstream has no room within max-wait: a 429 the caller can retry, with when. */
    private static void refuse(HttpServletResponse response, OutboundLimitException e) throws IOException {
        response.setStatus(429);
        response.setContentType("application/json");
        response.setHeader("retry-after", Long.toString(Math.max(1, (e.roomIn().toMillis() + 999) / 1000)));
        String message = e.getMessage().replace("\\", "\\\\").replace("\"", "\\\"");
        response.getOutputStream().write(("{\"error\":{\"message\":\"" + message
                + "\",\"type\":\"rate_limit_exceeded\",\"param\":null,\"code\":\"upstream_capacity\"}}")
                .getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void destroy() {
        limiter.close();
    }
}
