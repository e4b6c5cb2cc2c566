package dev.llmratelimit.servlet;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.Http;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.UnsupportedEncodingException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/** Hostile bodies, each through the filter over real HTTP, with exact answers and counts. */
class HostileBodiesTest {

    private static FilterServer server(Map<String, String> config, HttpServlet application) throws Exception {
        return new FilterServer(RateLimitRuntime.create(config, null), Map.of(), application, "/v1/chat/completions");
    }

    private static HttpResponse<String> post(Http http, byte[] body, String contentType) {
        return Http.send(http.request("/v1/chat/completions", null).setHeader("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build());
    }

    /** Jackson databind from getInputStream(): detects UTF-16 itself, as JAX-RS providers and the demo's mock do. */
    static final class DatabindApplication extends HttpServlet {
        final AtomicInteger served = new AtomicInteger();

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            String model = new com.fasterxml.jackson.databind.ObjectMapper().readTree(request.getInputStream())
                    .path("model").asText();
            served.incrementAndGet();
            response.setContentType("application/json");
            response.getOutputStream().write(("{\"model\":\"" + model + "\",\"choices\":[],"
                    + "\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}").getBytes(StandardCharsets.UTF_8));
        }
    }

    @ParameterizedTest
    @CsvSource({"ISO-8859-1", "UTF8", "windows-1252"})
    void aUtf16BodyDeclaredInAnotherCharsetIsRefusedNotServedUncounted(String declared) throws Exception {
        DatabindApplication application = new DatabindApplication();
        try (FilterServer server = server(properties("models.gpt-4o-mini.rpm=3"), application)) {
            byte[] body = OneReadingPropertyTest.shiftedTwoReadings("gpt-4o-mini", "cheap");
            for (int i = 0; i < 20; i++) {
                HttpResponse<String> response = post(server.http(), body, "application/json; charset=" + declared);
                assertThat(response.statusCode()).as("request " + i).isEqualTo(400);
                assertThat(response.body()).contains("\"type\":\"invalid_request_error\"");
            }
            assertThat(application.served.get()).isZero();
        }
    }

    @Test
    void aUtf16BodyThatDeclaresItsCharsetIsServedAndCounted() throws Exception {
        DatabindApplication application = new DatabindApplication();
        try (FilterServer server = server(properties("models.gpt-4o-mini.rpm=3"), application)) {
            byte[] body = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"content\":\"caf\u00e9 \u4f60\u597d\"}]}"
                    .getBytes(StandardCharsets.UTF_16LE);
            for (int i = 0; i < 5; i++) {
                HttpResponse<String> response = post(server.http(), body, "application/json; charset=utf-16le");
                assertThat(response.statusCode()).as("request " + i).isEqualTo(i < 3 ? 200 : 429);
            }
            assertThat(application.served.get()).isEqualTo(3);
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "`{\"model\":\"m\",\"stream\":\"true\"}` | The 'stream' field must be a boolean.",
        "`{\"model\":\"m\",\"stream\":1}` | The 'stream' field must be a boolean.",
        "`{\"model\":\"m\",\"stream_options\":\"x\"}` | The 'stream_options' field must be an object or null.",
        "`{\"model\":\"m\",\"stream_options\":[]}` | The 'stream_options' field must be an object or null.",
        "`{\"model\":\"m\",\"stream_options\":{\"include_usage\":1}}` | The 'stream_options.include_usage' field must be a boolean.",
        "`{\"model\":\"m\",\"max_tokens\":\"100\"}` | The 'max_tokens' field must be a whole number from 0 to 2147483647.",
        "`{\"model\":\"m\",\"max_tokens\":12.5}` | The 'max_tokens' field must be a whole number from 0 to 2147483647.",
        "`{\"model\":\"m\",\"max_tokens\":100.0}` | The 'max_tokens' field must be a whole number from 0 to 2147483647.",
        "`{\"model\":\"m\",\"max_tokens\":-5}` | The 'max_tokens' field must be a whole number from 0 to 2147483647.",
        "`{\"model\":\"m\",\"max_tokens\":9223372036854775797}` | The 'max_tokens' field must be a whole number from 0 to 2147483647.",
        "`{\"model\":\"m\",\"max_completion_tokens\":[1]}` | The 'max_completion_tokens' field must be a whole number from 0 to 2147483647.",
        "`{\"model\":\"m\",\"n\":0}` | The 'n' field must be a whole number from 1 to 128.",
        "`{\"model\":\"m\",\"n\":129}` | The 'n' field must be a whole number from 1 to 128.",
        "`{\"model\":\"m\",\"n\":\"2\"}` | The 'n' field must be a whole number from 1 to 128.",
    })
    void fieldsOfTheWrongTypeAre400(String body, String message) throws Exception {
        DatabindApplication application = new DatabindApplication();
        try (FilterServer server = server(properties("models.m.rpm=100"), application)) {
            HttpResponse<String> response = server.http().chat(null, body);
            assertThat(response.statusCode()).isEqualTo(400);
            assertThat(response.body()).isEqualTo("{\"error\":{\"message\":\"" + message + "\","
                    + "\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"invalid_request\"}}");
            assertThat(application.served.get()).isZero();
        }
    }

    @Test
    void nullAndAbsentFieldsAreWellFormed() throws Exception {
        DatabindApplication application = new DatabindApplication();
        try (FilterServer server = server(properties("models.m.rpm=100"), application)) {
            String body = "{\"model\":\"m\",\"stream\":null,\"stream_options\":null,\"max_tokens\":null,"
                    + "\"max_completion_tokens\":null,\"n\":null}";
            assertThat(server.http().chat(null, body).statusCode()).isEqualTo(200);
            assertThat(server.http().chat(null, "{\"model\":\"m\",\"n\":128,\"max_tokens\":2147483647}").statusCode())
                    .isEqualTo(200);
        }
    }

    /** HTTP methods are case-sensitive: {@code post} is not POST, so the filter must not count it. */
    @Test
    void aLowerCaseMethodIsNotCounted() throws Exception {
        DatabindApplication application = new DatabindApplication();
        try (FilterServer server = server(properties("models.m.rpm=1"), application)) {
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> lower = Http.send(server.http().request("/v1/chat/completions", null)
                        .method("post", HttpRequest.BodyPublishers.ofString("{\"model\":\"m\"}")).build());
                assertThat(lower.statusCode()).isEqualTo(501);
            }
            assertThat(server.http().chat(null, "{\"model\":\"m\"}").statusCode()).isEqualTo(200);
            assertThat(server.http().chat(null, "{\"model\":\"m\"}").statusCode()).isEqualTo(429);
        }
    }

    static final class ReaderApplication extends HttpServlet {
        final AtomicReference<Throwable> failure = new AtomicReference<>();

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            try {
                request.getReader();
            } catch (IOException | RuntimeException e) {
                failure.set(e);
            }
            response.setStatus(415);
        }
    }

    @Test
    void getReaderWithAnUnknownCharsetThrowsUnsupportedEncodingException() throws Exception {
        ReaderApplication application = new ReaderApplication();
        try (FilterServer server = server(properties("models.m.rpm=10"), application)) {
            HttpResponse<String> response = post(server.http(), "{\"model\":\"m\"}".getBytes(StandardCharsets.US_ASCII),
                    "application/json; charset=x-no-such-charset");
            assertThat(response.statusCode()).isEqualTo(415);
            assertThat(application.failure.get()).isInstanceOf(UnsupportedEncodingException.class)
                    .hasMessage("x-no-such-charset");
        }
    }

    /** Answers with the usage figures given in the query. */
    static final class EchoUsageApplication extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            request.getInputStream().readAllBytes();
            response.setContentType("application/json");
            response.getOutputStream().write(("{\"id\":\"1\",\"choices\":[],\"usage\":{\"prompt_tokens\":"
                    + request.getParameter("prompt") + ",\"completion_tokens\":" + request.getParameter("completion")
                    + "}}").getBytes(StandardCharsets.US_ASCII));
        }
    }

    private static HttpResponse<String> usage(Http http, String prompt, String completion) {
        return http.post("/v1/chat/completions?prompt=" + prompt + "&completion=" + completion, null, "{\"model\":\"m\"}");
    }

    /** 30 + 10 + (Long.MAX_VALUE - 10) wrapped the token counter to 0 and let every later request through. */
    @Test
    void usageFiguresThatWouldWrapTheSumCountAsLarge() throws Exception {
        try (FilterServer server = server(properties("models.m.tpm=1000"), new EchoUsageApplication())) {
            assertThat(usage(server.http(), "10", "20").statusCode()).isEqualTo(200);
            assertThat(usage(server.http(), "10", "9223372036854775797").statusCode()).isEqualTo(200);
            HttpResponse<String> next = usage(server.http(), "10", "20");
            assertThat(next.statusCode()).isEqualTo(429);
            assertThat(Http.header(next, "x-ratelimit-remaining-tokens")).isEqualTo("0");
        }
    }

    /** A figure beyond {@code long} used to make the usage unusable, so nothing was charged. */
    @Test
    void implausibleUsageFiguresCountAsLargeNeverAsZero() throws Exception {
        try (FilterServer server = server(properties("models.m.tpm=1000"), new EchoUsageApplication())) {
            assertThat(usage(server.http(), "99999999999999999999999", "5").statusCode()).isEqualTo(200);
            assertThat(usage(server.http(), "10", "20").statusCode()).isEqualTo(429);
        }
    }

    /** In reserve mode the expected output is max_tokens for each of the n choices. */
    @Test
    void nMultipliesTheReservedOutput() throws Exception {
        Encoding cl100k = Encodings.newDefaultEncodingRegistry().getEncoding(EncodingType.CL100K_BASE);
        long prompt = 3 + 3 + cl100k.countTokensOrdinary("user") + cl100k.countTokensOrdinary("Hi");
        try (FilterServer server = server(properties("token-admission=reserve", "models.m.tpm=100000"),
                new EchoUsageApplication())) {
            String body = "{\"model\":\"m\",\"n\":4,\"max_tokens\":100,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
            HttpResponse<String> response = server.http().post("/v1/chat/completions?prompt=1&completion=1", null, body);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(Http.header(response, "x-ratelimit-remaining-tokens")).isEqualTo(Long.toString(100_000 - prompt - 400));
        }
    }
}
