package dev.llmratelimit.samples.springboot;

import org.springframework.core.env.Environment;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** Calls the running application as a client does: HTTP Basic (or a bearer token), a JSON body. */
final class Calls {

    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    private final int port;

    Calls(int port) {
        this.port = port;
    }

    /** The port of the application's embedded Tomcat ({@code webEnvironment = RANDOM_PORT}). */
    static Calls to(Environment environment) {
        return new Calls(Integer.parseInt(environment.getRequiredProperty("local.server.port")));
    }

    HttpResponse<String> chat(String user, String model) throws IOException, InterruptedException {
        return chatAuthorized(basic(user), model);
    }

    /** @param authorization the {@code Authorization} header, e.g. {@code Bearer <JWT>} */
    HttpResponse<String> chatAuthorized(String authorization, String model) throws IOException, InterruptedException {
        return send(authorization, "/v1/chat/completions",
                "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}");
    }

    HttpResponse<String> post(String user, String path, String body) throws IOException, InterruptedException {
        return send(basic(user), path, body);
    }

    private HttpResponse<String> send(String authorization, String path, String body) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base() + path))
                .header("Authorization", authorization)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return CLIENT.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return CLIENT.send(HttpRequest.newBuilder(URI.create(base() + path)).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    HttpResponse<String> get(String user, String path) throws IOException, InterruptedException {
        return CLIENT.send(HttpRequest.newBuilder(URI.create(base() + path)).header("Authorization", basic(user)).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    String base() {
        return "http://127.0.0.1:" + port;
    }

    /** The sample's users have the password {@code <name>-secret}. */
    static String basic(String user) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + user + "-secret").getBytes(StandardCharsets.UTF_8));
    }
}
