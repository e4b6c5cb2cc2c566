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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Variants of a protected path in a real Tomcat (docs/endpoints.md): Tomcat takes {@code ;} parameters
 * out of every segment and folds {@code //}, so those reach the application mapped at the exact path;
 * a trailing slash reaches it only through a prefix mapping. The filter counts every variant like the
 * canonical path, so none is served uncounted; one that the container answers 404 costs a request and
 * no tokens (a non-2xx answer is not served).
 */
class PathVariantsOverTomcatTest {

    private static final List<String> VARIANTS = List.of("/v1/chat/completions", "/v1/chat/completions/",
            "/v1/chat/completions;a=b", "/v1;a=b/chat/completions", "/v1/chat/completions;a=b/",
            "/v1/chat/completions//", "/v1/chat//completions");

    static final class Answering extends HttpServlet {
        final AtomicInteger served = new AtomicInteger();

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            request.getInputStream().readAllBytes();
            served.incrementAndGet();
            response.setContentType("application/json");
            response.getWriter().write("{\"id\":\"1\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":20}}");
        }
    }

    /** Per variant: the status, whether the application ran, and the requests and tokens left after it. */
    private static List<String> sendEachVariant(String mapping) throws Exception {
        Answering app = new Answering();
        List<String> seen = new ArrayList<>();
        try (FilterServer server = new FilterServer(RateLimitRuntime.create(
                properties("models.m.rpm=100", "models.m.tpm=10000"), null), Map.of(), app, mapping)) {
            for (String path : VARIANTS) {
                int before = app.served.get();
                HttpResponse<String> answer = server.http().post(path, null, FilterServer.chat("m"));
                boolean served = app.served.get() - before == 1;
                HttpResponse<String> next = server.http().post("/v1/chat/completions", null, FilterServer.chat("m"));
                seen.add(path + " " + answer.statusCode() + (served ? " served" : " not served")
                        + ", then " + Http.header(next, "x-ratelimit-remaining-requests") + " requests and "
                        + Http.header(next, "x-ratelimit-remaining-tokens") + " tokens left");
            }
        }
        return seen;
    }

    @Test
    void anApplicationMappedAtTheExactPathServesParametersAndDoubleSlashesAndEveryVariantIsCounted() throws Exception {
        assertThat(sendEachVariant("/v1/chat/completions")).containsExactly(
                "/v1/chat/completions 200 served, then 98 requests and 9970 tokens left",
                "/v1/chat/completions/ 404 not served, then 96 requests and 9940 tokens left",
                "/v1/chat/completions;a=b 200 served, then 94 requests and 9880 tokens left",
                "/v1;a=b/chat/completions 200 served, then 92 requests and 9820 tokens left",
                "/v1/chat/completions;a=b/ 404 not served, then 90 requests and 9790 tokens left",
                "/v1/chat/completions// 404 not served, then 88 requests and 9760 tokens left",
                "/v1/chat//completions 200 served, then 86 requests and 9700 tokens left");
    }

    @Test
    void anApplicationMappedByPrefixServesEveryVariantAndEachIsCounted() throws Exception {
        assertThat(sendEachVariant("/v1/*")).containsExactly(
                "/v1/chat/completions 200 served, then 98 requests and 9970 tokens left",
                "/v1/chat/completions/ 200 served, then 96 requests and 9910 tokens left",
                "/v1/chat/completions;a=b 200 served, then 94 requests and 9850 tokens left",
                "/v1;a=b/chat/completions 200 served, then 92 requests and 9790 tokens left",
                "/v1/chat/completions;a=b/ 200 served, then 90 requests and 9730 tokens left",
                "/v1/chat/completions// 200 served, then 88 requests and 9670 tokens left",
                "/v1/chat//completions 200 served, then 86 requests and 9610 tokens left");
    }
}
