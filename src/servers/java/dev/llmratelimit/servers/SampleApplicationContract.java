package dev.llmratelimit.servers;

import org.jboss.arquillian.test.api.ArquillianResource;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every server must show over HTTP with its sample application deployed: the filter ran (its
 * headers and refusals are there), callers' priorities come from the principal the server's own
 * security authenticated, a saturated model refuses the low pool with the answer of docs/errors.md,
 * tokens are recorded from JSON and streamed responses, and the limits are those of the sample's
 * microprofile-config.properties and of the server's system properties, read through the
 * MicroProfile Config the application sees (the server's own on WildFly and Payara).
 *
 * <p>Each test uses its own model of the sample's configuration, so the order does not matter.
 */
public abstract class SampleApplicationContract {

    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();

    @ArquillianResource
    URL deployment;

    /** The deployed application's root, as an address this JVM can reach. */
    protected URI applicationRoot() throws Exception {
        String root = deployment.toString();
        return URI.create(root.endsWith("/") ? root : root + "/");
    }

    @Test
    void theServersSecurityRefusesUnknownCallersBeforeTheFilter() throws Exception {
        HttpResponse<String> anonymous = chat(null, null, "{\"model\":\"o4-mini\"}");
        HttpResponse<String> wrongPassword = chat("alice", "wrong", "{\"model\":\"o4-mini\"}");

        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.headers().firstValue("x-ratelimit-priority")).isEmpty();
        assertThat(wrongPassword.statusCode()).isEqualTo(401);
        assertThat(wrongPassword.headers().firstValue("x-ratelimit-priority")).isEmpty();
    }

    @Test
    void prioritiesComeFromTheAuthenticatedPrincipal() throws Exception {
        HttpResponse<String> alice = chat("alice", "alice-secret", "{\"model\":\"o4-mini\"}");
        HttpResponse<String> bob = chat("bob", "bob-secret", "{\"model\":\"o4-mini\"}");

        assertThat(alice.statusCode()).isEqualTo(200);
        assertThat(alice.body()).contains("\"content\":\"Hello alice\"");
        assertThat(header(alice, "x-ratelimit-priority")).isEqualTo("prod");
        assertThat(header(alice, "x-ratelimit-limit-requests")).isEqualTo("100");
        assertThat(header(alice, "x-ratelimit-remaining-requests")).isEqualTo("99");
        assertThat(bob.statusCode()).isEqualTo(200);
        assertThat(bob.body()).contains("\"content\":\"Hello bob\"");
        assertThat(header(bob, "x-ratelimit-priority")).isEqualTo("dev");
        assertThat(header(bob, "x-ratelimit-remaining-requests")).isEqualTo("98");
    }

    @Test
    void aSaturatedModelRefusesTheLowPoolAndAdmitsTheHighOne() throws Exception {
        String request = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
        HttpResponse<String> first = chat("bob", "bob-secret", request);
        HttpResponse<String> second = chat("bob", "bob-secret", request);
        HttpResponse<String> refused = chat("bob", "bob-secret", request);
        HttpResponse<String> prod = chat("alice", "alice-secret", request);

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(header(first, "x-ratelimit-remaining-requests")).isEqualTo("3");
        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(header(second, "x-ratelimit-remaining-requests")).isEqualTo("2");

        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(header(refused, "content-type")).startsWith("application/json");
        assertThat(refused.body()).isEqualTo("{\"error\":{\"message\":\"Priority-based rate limit exceeded. "
                + "Model: gpt-4o-mini, Priority: dev, Rate limit type: requests, Model TPM: not configured, "
                + "Model RPM: 4, Remaining: 0, Model saturation: 50.0%\",\"type\":\"throttling_error\","
                + "\"param\":null,\"code\":\"429\"}}");
        assertThat(header(refused, "x-ratelimit-priority")).isEqualTo("dev");
        assertThat(header(refused, "x-ratelimit-saturation")).isEqualTo("50.00%");
        assertThat(header(refused, "x-ratelimit-limit-requests")).isEqualTo("1");
        assertThat(header(refused, "x-ratelimit-remaining-requests")).isEqualTo("0");
        assertThat(Long.parseLong(header(refused, "retry-after"))).isBetween(1L, 3600L);

        assertThat(prod.statusCode()).isEqualTo(200);
        assertThat(header(prod, "x-ratelimit-priority")).isEqualTo("prod");
        assertThat(header(prod, "x-ratelimit-remaining-requests")).isEqualTo("1");
    }

    @Test
    void configurationFromTheServerReachesTheFilter() throws Exception {
        // llm.ratelimit.models.server-configured.rpm=7 is a system property of the server (arquillian.xml).
        HttpResponse<String> response = chat("bob", "bob-secret", "{\"model\":\"server-configured\"}");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(header(response, "x-ratelimit-limit-requests")).isEqualTo("7");
        assertThat(header(response, "x-ratelimit-remaining-requests")).isEqualTo("6");
    }

    @Test
    void tokensAreRecordedFromJsonAndStreamedResponses() throws Exception {
        HttpResponse<String> json = chat("alice", "alice-secret", "{\"model\":\"gpt-4o\"}");
        HttpResponse<String> stream = chat("alice", "alice-secret", "{\"model\":\"gpt-4o\",\"stream\":true}");
        HttpResponse<String> next = chat("alice", "alice-secret", "{\"model\":\"gpt-4o\"}");

        assertThat(json.statusCode()).isEqualTo(200);
        assertThat(header(json, "x-ratelimit-limit-tokens")).isEqualTo("1000");
        assertThat(header(json, "x-ratelimit-remaining-tokens")).isEqualTo("1000");
        assertThat(stream.statusCode()).isEqualTo(200);
        assertThat(header(stream, "content-type")).startsWith("text/event-stream");
        assertThat(header(stream, "x-ratelimit-remaining-tokens")).isEqualTo("970");
        // The filter asked the servlet for usage and took the usage-only chunk out again.
        assertThat(stream.body()).contains("Hello alice").endsWith("data: [DONE]\n\n").doesNotContain("usage");
        assertThat(next.statusCode()).isEqualTo(200);
        assertThat(header(next, "x-ratelimit-remaining-tokens")).isEqualTo("955");
    }

    protected HttpResponse<String> chat(String user, String password, String json) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(applicationRoot().resolve("v1/chat/completions"))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (user != null) {
            request.header("Authorization", "Basic " + Base64.getEncoder()
                    .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
        }
        return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    protected static String header(HttpResponse<?> response, String name) {
        return response.headers().firstValue(name).orElseThrow(() -> new AssertionError(
                "no " + name + " header; status " + response.statusCode() + ", headers " + response.headers().map()));
    }
}
