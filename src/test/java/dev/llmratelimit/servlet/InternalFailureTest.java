package dev.llmratelimit.servlet;

import dev.llmratelimit.config.FilterSettings;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.demo.BearerKeyAuthFilter;
import dev.llmratelimit.demo.EmbeddedTomcat;
import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.identity.Caller;
import dev.llmratelimit.identity.CallerLimitPolicy;
import dev.llmratelimit.identity.CallerResolver;
import dev.llmratelimit.observe.otel.OpenTelemetryTelemetry;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.Http;
import dev.llmratelimit.testsupport.UnavailableAdmissionStore;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.llmratelimit.testsupport.Policies.policy;
import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A failure of the filter itself (here: of a component plugged into it) follows
 * {@code on-internal-error}: 503 by default, never a 500, never a request served unlimited unless
 * the setting says fail-open; counted in metrics either way; whatever was acquired is given back.
 */
class InternalFailureTest {

    private static final String SERVICE_UNAVAILABLE = "{\"error\":{\"message\":\"The rate limiter failed on this request;"
            + " try again shortly\",\"type\":\"service_unavailable\",\"param\":null,\"code\":\"rate_limiter_error\"}}";

    private static final CallerResolver BROKEN = principal -> {
        throw new IllegalStateException("resolver bug");
    };

    private final InMemoryMetricReader reader = InMemoryMetricReader.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build()).build();

    private long internalErrors(String entryPoint) {
        return reader.collectAllMetrics().stream().filter(m -> m.getName().equals("llm_ratelimit.internal_errors"))
                .map(MetricData::getLongSumData).flatMap(data -> data.getPoints().stream())
                .filter(point -> point.getAttributes().equals(Attributes.of(AttributeKey.stringKey("entry_point"), entryPoint)))
                .mapToLong(LongPointData::getValue).sum();
    }

    @Test
    void aBrokenResolverGets503AndTheApplicationIsNotCalled() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        try (RateLimitRuntime runtime = RateLimitRuntime.create(properties("models.m.rpm=1"), BROKEN,
                OpenTelemetryTelemetry.of(sdk));
             EmbeddedTomcat tomcat = new EmbeddedTomcat(0)
                     .filter("llm-ratelimit", new RateLimitFilter(runtime), "/*")
                     .servlet("chat", new CountingServlet(calls), "/v1/chat/completions", "/v1/messages")) {
            Http http = new Http(tomcat.start());
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> response = http.chat(null, "{\"model\":\"m\"}");
                assertThat(response.statusCode()).isEqualTo(503);
                assertThat(response.body()).isEqualTo(SERVICE_UNAVAILABLE);
                assertThat(Http.header(response, "retry-after")).isEqualTo("1");
                assertThat(Http.header(response, "content-type")).isEqualTo("application/json;charset=UTF-8");
            }
            HttpResponse<String> anthropic = http.post("/v1/messages", null,
                    "{\"model\":\"m\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}");
            assertThat(anthropic.statusCode()).isEqualTo(503);
            assertThat(anthropic.body()).isEqualTo("{\"type\":\"error\",\"error\":{\"type\":\"api_error\","
                    + "\"message\":\"The rate limiter failed on this request; try again shortly\"}}");
            assertThat(calls).hasValue(0);
            assertThat(internalErrors("filter")).isEqualTo(4);
        }
    }

    @Test
    void failOpenLetsTheRequestThroughUnlimitedAndStillCountsTheFailure() throws Exception {
        try (RateLimitRuntime runtime = RateLimitRuntime.create(properties("models.m.rpm=1", "on-internal-error=fail-open"),
                BROKEN, OpenTelemetryTelemetry.of(sdk));
             EmbeddedTomcat tomcat = new EmbeddedTomcat(0)
                     .filter("llm-ratelimit", new RateLimitFilter(runtime), "/*")
                     .servlet("chat", new RegistrationTest.UsageServlet(), "/v1/chat/completions")) {
            Http http = new Http(tomcat.start());
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> response = http.chat(null, "{\"model\":\"m\"}");
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.body()).contains("\"total_tokens\":30");
                assertThat(Http.header(response, "x-ratelimit-priority")).isNull();
            }
            assertThat(internalErrors("filter")).isEqualTo(3);
        }
    }

    /**
     * The failure comes after the admission (the container refuses a header the filter sets, on the
     * first two requests): the admission is finished all the same, so the caller's one parallel slot
     * is free for the third request, and each failed request stays counted against her rpm-limit.
     */
    @Test
    void aFailureBetweenAdmissionAndTheCallGivesTheAdmissionBack() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        AtomicInteger requests = new AtomicInteger();
        Filter refusingRateLimitHeadersTwice = (request, response, chain) -> {
            boolean refuses = requests.incrementAndGet() <= 2;
            chain.doFilter(request, new HttpServletResponseWrapper((HttpServletResponse) response) {
                @Override
                public void setHeader(String name, String value) {
                    if (refuses && name.startsWith("x-ratelimit-")) {
                        throw new IllegalStateException("header refused");
                    }
                    super.setHeader(name, value);
                }
            });
        };
        RateLimitRuntime runtime = RateLimitRuntime.create(properties("models.m.rpm=100",
                "principals.alice.max-parallel-requests=1", "principals.alice.rpm-limit=3"), null);
        try (runtime; EmbeddedTomcat tomcat = new EmbeddedTomcat(0)
                .filter("auth", new BearerKeyAuthFilter(Map.of("sk-alice", "alice")), "/*")
                .filter("refusing-headers", refusingRateLimitHeadersTwice, "/*")
                .filter("llm-ratelimit", new RateLimitFilter(runtime), "/*")
                .servlet("chat", new CountingServlet(calls), "/v1/chat/completions")) {
            Http http = new Http(tomcat.start());
            List<HttpResponse<String>> answers = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                answers.add(http.chat("sk-alice", FilterServer.chat("m")));
            }
            assertThat(answers).extracting(HttpResponse::statusCode).containsExactly(503, 503, 200, 429);
            assertThat(answers.get(0).body()).isEqualTo(SERVICE_UNAVAILABLE);
            assertThat(Http.header(answers.get(0), "x-ratelimit-remaining-requests")).isNull();
            assertThat(Http.header(answers.get(2), "x-ratelimit-remaining-requests")).isEqualTo("97");  // the model counted all three
            assertThat(calls).hasValue(1);
        }
    }

    @Test
    void aFailedStoreWithFailOpenAdmitsAndNamesThePool() throws Exception {
        AdmissionStore down = new UnavailableAdmissionStore();
        RateLimitPolicy policy = policy("models.m.rpm=1", "reservation.prod=0.5");
        RateLimitRuntime runtime = new RateLimitRuntime(FilterSettings.parse(Map.of()), new RateLimiter(policy, down),
                principal -> new Caller("alice", null, null, "prod"),
                CallerLimitPolicy.parse(Map.of(), policy.window()), () -> { });
        try (FilterServer server = new FilterServer(runtime, Map.of("sk-alice", "alice"),
                new RegistrationTest.UsageServlet(), "/v1/chat/completions")) {
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> response = server.http().chat("sk-alice", "{\"model\":\"m\"}");
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(Http.header(response, "x-ratelimit-priority")).isEqualTo("prod");
                assertThat(Http.header(response, "x-ratelimit-limit-requests")).isNull();
            }
        }
    }

    /** Counts its calls and answers with usage. */
    static final class CountingServlet extends jakarta.servlet.http.HttpServlet {
        private final AtomicInteger calls;

        CountingServlet(AtomicInteger calls) {
            this.calls = calls;
        }

        @Override
        protected void doPost(jakarta.servlet.http.HttpServletRequest request, HttpServletResponse response)
                throws java.io.IOException {
            calls.incrementAndGet();
            request.getInputStream().readAllBytes();
            response.setContentType("application/json");
            response.getOutputStream().write(("{\"choices\":[]," + ScriptedChatServlet.USAGE_30 + "}")
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
    }
}
