package dev.llmratelimit.interceptor;

import dev.llmratelimit.config.RateLimitContext;
import dev.llmratelimit.demo.BearerKeyAuthFilter;
import dev.llmratelimit.demo.EmbeddedTomcat;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.Limit;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.servlet.RateLimitFilter;
import dev.llmratelimit.testsupport.Http;
import dev.llmratelimit.usage.TokenCounter;
import jakarta.enterprise.inject.spi.CDI;
import org.apache.catalina.Wrapper;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;

import static dev.llmratelimit.testsupport.Admits.admit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The interceptor in a container over real HTTP: Tomcat with Weld (CDI), RESTEasy (JAX-RS, with its
 * CDI integration), the filter in front of {@code /v1/chat/completions}, and the application's
 * {@code TestCallerResolver} bean (key {@code sk-zed} is principal zed, priority prod).
 */
class InterceptorTest {

    private static final String THROTTLED_LIMITED = "{\"error\":{\"message\":\"Model capacity reached for limited. "
            + "Priority: default, Rate limit type: requests, Model TPM: not configured, Model RPM: 2, Remaining: 0\","
            + "\"type\":\"throttling_error\",\"param\":null,\"code\":\"429\"}}";

    private static EmbeddedTomcat tomcat;
    private static Http http;

    @BeforeAll
    static void start() throws Exception {
        Map.of("window", "1h",
                "models.limited.rpm", "2",
                "models.guarded.rpm", "3",
                "models.plain.rpm", "1",
                "models.nested.rpm", "100",
                "models.batch.rpm", "1",
                "models.batch.reservation.prod", "0.5",
                "models.pooled.rpm", "100",
                "models.pooled.reservation.prod", "0.5",
                "reject-unknown-models", "true"
        ).forEach((name, value) -> System.setProperty("llm.ratelimit." + name, value));
        // a per-model key budget of $0.10 on "budgeted" at 1000 micro-dollars per token; a call without max_tokens reserves 20 tokens
        Map.of("models.budgeted.rpm", "100", "prices.budgeted.input", "1000", "prices.budgeted.output", "1000",
                "prices.budgeted.max-output-tokens", "20", "principals.zed.budgets.budgeted", "0.10"
        ).forEach((name, value) -> System.setProperty("llm.ratelimit." + name, value));
        for (String model : new String[] {"string", "response", "not-found", "stream-json", "stream-sse", "stream-cut", "events",
                "object", "map", "failing", "nested", "named"}) {
            System.setProperty("llm.ratelimit.models.tokens-" + model + ".rpm", "100");
            System.setProperty("llm.ratelimit.models.tokens-" + model + ".tpm", "1000");
        }
        System.setProperty("llm.ratelimit.models.claude.otpm", "1");
        System.setProperty("llm.ratelimit.models.tokens-messages-cut.rpm", "100");
        System.setProperty("llm.ratelimit.models.tokens-messages-cut.tpm", "100000");
        tomcat = new EmbeddedTomcat(0)
                .filter("auth", new BearerKeyAuthFilter(Map.of("sk-zed", "zed", "sk-yan", "yan")), "/*")
                .filter("llm-ratelimit", RateLimitFilter.class.getName(), "/*");
        tomcat.context().addApplicationListener("org.jboss.weld.environment.servlet.Listener");
        tomcat.context().addParameter("resteasy.injector.factory", "org.jboss.resteasy.cdi.CdiInjectorFactory");
        Wrapper jaxrs = Tomcat.addServlet(tomcat.context(), "jaxrs",
                "org.jboss.resteasy.plugins.server.servlet.HttpServlet30Dispatcher");
        jaxrs.addInitParameter("jakarta.ws.rs.Application", ChatApplication.class.getName());
        jaxrs.setAsyncSupported(true);
        tomcat.context().addServletMappingDecoded("/*", "jaxrs");
        http = new Http(tomcat.start());
    }

    @AfterAll
    static void stop() throws Exception {
        tomcat.close();
    }

    @BeforeEach
    void resetCalls() {
        ChatService.CALLS.set(0);
    }

    @Test
    void admitsUpToTheLimitThenAnswersTheFiltersExact429() {
        HttpResponse<String> first = post("/api/string", "sk-yan", "limited");
        HttpResponse<String> second = post("/api/string", "sk-yan", "limited");
        HttpResponse<String> refused = post("/api/string", "sk-yan", "limited");

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).isEqualTo(ChatResource.COMPLETION);
        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.body()).isEqualTo(THROTTLED_LIMITED);
        assertThat(Http.header(refused, "content-type")).isEqualTo("application/json");
        assertThat(Long.parseLong(Http.header(refused, "retry-after"))).isBetween(1L, 3600L);
        assertThat(Http.header(refused, "x-ratelimit-priority")).isEqualTo("default");
        assertThat(Http.header(refused, "x-ratelimit-limit-requests")).isEqualTo("2");
        assertThat(Http.header(refused, "x-ratelimit-remaining-requests")).isEqualTo("0");
        assertThat(Http.header(refused, "x-ratelimit-limit-tokens")).isNull();
        assertThat(Http.header(refused, "x-ratelimit-saturation")).isNull();
        assertThat(ChatService.CALLS).hasValue(2);
    }

    @Test
    void aMessagesResourceAnswersARefusalAsAnthropicsApiWithItsHeaderNames() {
        assertThat(post("/api/v1/messages", "sk-yan", "claude").statusCode()).isEqualTo(200);   // 20 output tokens
        HttpResponse<String> refused = post("/api/v1/messages", "sk-yan", "claude");

        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.body()).isEqualTo("{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\","
                + "\"message\":\"Model capacity reached for claude. Priority: default, Rate limit type: output_tokens, "
                + "Model TPM: not configured, Model RPM: not configured, Model OTPM: 1, Remaining: 0\"}}");
        long retryAfter = Long.parseLong(Http.header(refused, "retry-after"));
        assertThat(retryAfter).isBetween(3000L, 3600L);
        assertThat(Http.header(refused, "x-ratelimit-limit-output-tokens")).isEqualTo("1");
        assertThat(Http.header(refused, "x-ratelimit-remaining-output-tokens")).isEqualTo("0");
        assertThat(Http.header(refused, "anthropic-ratelimit-output-tokens-limit")).isEqualTo("1");
        assertThat(Http.header(refused, "anthropic-ratelimit-output-tokens-remaining")).isEqualTo("0");
        assertThat(Instant.parse(Http.header(refused, "anthropic-ratelimit-output-tokens-reset")))
                .isBetween(Instant.now().plusSeconds(retryAfter - 5), Instant.now().plusSeconds(retryAfter + 1));
        assertThat(Http.header(refused, "anthropic-ratelimit-requests-limit")).isNull();
        assertThat(ChatService.CALLS).hasValue(1);
    }

    @Test
    void aPoolRefusalCarriesTheCallersPriorityAndTheSaturation() {
        // 50 of 100 requests borrowed by the default pool (share 0.25) in generous mode: now saturated
        for (int i = 0; i < 50; i++) {
            assertThat(post("/api/models/pooled", "sk-yan", "whatever").statusCode()).isEqualTo(200);
        }
        HttpResponse<String> defaultPool = post("/api/models/pooled", "sk-yan", "whatever");
        HttpResponse<String> prod = post("/api/models/pooled", "sk-zed", "whatever");

        assertThat(defaultPool.statusCode()).isEqualTo(429);
        assertThat(defaultPool.body()).isEqualTo("{\"error\":{\"message\":\"Priority-based rate limit exceeded. "
                + "Model: pooled, Priority: default, Rate limit type: requests, Model TPM: not configured, "
                + "Model RPM: 100, Remaining: 0, Model saturation: 50.0%\",\"type\":\"throttling_error\","
                + "\"param\":null,\"code\":\"429\"}}");
        assertThat(Http.header(defaultPool, "x-ratelimit-saturation")).isEqualTo("50.00%");
        assertThat(Http.header(defaultPool, "x-ratelimit-priority")).isEqualTo("default");
        assertThat(prod.statusCode()).isEqualTo(200);
        assertThat(Http.header(prod, "x-ratelimit-priority")).isNull();   // a String return value carries no headers
    }

    @Test
    void usageFromAJsonStringReturnValue() {
        assertThat(post("/api/string", "sk-yan", "tokens-string").statusCode()).isEqualTo(200);

        assertThat(tokensRecorded("tokens-string")).isEqualTo(50);
    }

    @Test
    void usageFromAResponseEntityWithTheAdmittedHeadersAdded() {
        HttpResponse<String> response = post("/api/response", "sk-zed", "tokens-response");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo(ChatResource.COMPLETION);
        assertThat(Http.header(response, "x-app")).isEqualTo("kept");
        assertThat(Http.header(response, "x-ratelimit-priority")).isEqualTo("default");
        // The resource's own x-ratelimit-* headers give way to the limiter's, as in the filter.
        assertThat(response.headers().allValues("x-ratelimit-limit-tokens")).containsExactly("1000");
        assertThat(response.headers().allValues("x-ratelimit-reset-tokens")).singleElement().asString().matches("59m[0-9.]+s|1h0m0s");
        assertThat(Http.header(response, "x-ratelimit-remaining-tokens")).isEqualTo("1000");
        assertThat(Http.header(response, "x-ratelimit-limit-requests")).isEqualTo("100");
        assertThat(Http.header(response, "x-ratelimit-remaining-requests")).isEqualTo("99");
        assertThat(tokensRecorded("tokens-response")).isEqualTo(50);
    }

    @Test
    void aNon2xxResponseRecordsNoTokensButCountsTheRequest() {
        assertThat(post("/api/not-found", "sk-yan", "tokens-not-found").statusCode()).isEqualTo(404);

        Verdict probe = probe("tokens-not-found");
        assertThat(probe.tokenRemaining()).isEqualTo(1000);
        assertThat(probe.requestRemaining()).isEqualTo(98);
    }

    @Test
    void usageFromAStreamingOutputOfJsonAsItIsWritten() {
        HttpResponse<String> response = post("/api/stream-json", "sk-yan", "tokens-stream-json");

        assertThat(response.body()).isEqualTo(ChatResource.COMPLETION);
        assertThat(tokensRecorded("tokens-stream-json")).isEqualTo(50);
    }

    @Test
    void usageFromAServerSentEventStreamAsItIsWritten() {
        HttpResponse<String> response = post("/api/stream-sse", "sk-yan", "tokens-stream-sse");

        assertThat(Http.header(response, "content-type")).isEqualTo("text/event-stream;charset=UTF-8");
        assertThat(response.body()).isEqualTo(ChatResource.EVENTS);
        assertThat(tokensRecorded("tokens-stream-sse")).isEqualTo(20);
    }

    @Test
    void aStreamCutBeforeItsUsageCostsItsPromptAndWhatItStreamed() {
        String body = "{\"model\":\"tokens-stream-cut\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        TokenCounter counter = TokenCounter.forModel("tokens-stream-cut");

        assertThat(http.post("/api/stream-cut", "sk-yan", body).statusCode()).isEqualTo(200);

        long expected = counter.promptTokens(bytes, bytes.length) + counter.count("Hi");
        assertThat(expected).isGreaterThan(1);
        assertThat(tokensRecorded("tokens-stream-cut")).isEqualTo(expected);
    }

    /** The provider's own prompt figure, sent before the cut, beats the estimate of the two-token prompt. */
    @Test
    void aStreamCutAfterItReportedItsPromptCostsThatPromptAndWhatItStreamed() {
        String body = "{\"model\":\"tokens-messages-cut\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";

        assertThat(http.post("/api/messages-stream-cut", "sk-yan", body).statusCode()).isEqualTo(200);

        assertThat(tokensRecorded("tokens-messages-cut"))
                .isEqualTo(20_000 + TokenCounter.forModel("tokens-messages-cut").count("Hi"));
    }

    @Test
    void usageFromEventsSentThroughAnSseEventSink() {
        HttpResponse<String> response = post("/api/events", "sk-yan", "tokens-events");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body().strip()).isEqualTo(ChatResource.EVENTS.strip());   // RESTEasy opens with a blank line
        assertThat(tokensRecorded("tokens-events")).isEqualTo(20);
    }

    @Test
    void theModelFromAnAnnotatedParameter() {
        assertThat(post("/api/models/tokens-named", "sk-yan", "ignored").statusCode()).isEqualTo(200);

        assertThat(tokensRecorded("tokens-named")).isEqualTo(50);
    }

    @Test
    void aBeanMethodWithARequestObjectAndAUsageObject() {
        assertThat(http.post("/api/service/tokens-object", "sk-yan", "{}").statusCode()).isEqualTo(200);

        assertThat(tokensRecorded("tokens-object")).isEqualTo(50);
        assertThat(ChatService.CALLS).hasValue(1);
    }

    @Test
    void aBeanMethodWithMapsCachedPromptTokensCountAsOpenAiCountsThem() {
        assertThat(http.post("/api/service-map/tokens-map", "sk-yan", "{}").statusCode()).isEqualTo(200);

        assertThat(tokensRecorded("tokens-map")).isEqualTo(70 + 10);
    }

    @Test
    void aMethodThatThrowsRecordsNoTokens() {
        assertThat(http.post("/api/service-failing/tokens-failing", "sk-yan", "{}").statusCode()).isEqualTo(500);

        Verdict probe = probe("tokens-failing");
        assertThat(probe.tokenRemaining()).isEqualTo(1000);
        assertThat(probe.requestRemaining()).isEqualTo(98);
    }

    @Test
    void aNestedLimitedCallIsCountedOnceWithTheUsageItReturned() {
        assertThat(post("/api/nested", "sk-yan", "tokens-nested").statusCode()).isEqualTo(200);

        Verdict probe = probe("tokens-nested");
        assertThat(probe.requestRemaining()).isEqualTo(98);
        assertThat(probe.tokenRemaining()).isEqualTo(1000 - 50);
        assertThat(probe("nested").requestRemaining()).isEqualTo(99);   // the inner call's own model: not counted
    }

    @Test
    void aRequestTheFilterLimitedIsCountedOnce() {
        HttpResponse<String>[] responses = new HttpResponse[4];
        for (int i = 0; i < responses.length; i++) {
            responses[i] = http.chat("sk-yan", "{\"model\":\"guarded\"}");
        }

        assertThat(responses).extracting(HttpResponse::statusCode).containsExactly(200, 200, 200, 429);
        assertThat(Http.header(responses[2], "x-ratelimit-remaining-requests")).isEqualTo("0");
        assertThat(ChatService.CALLS).hasValue(3);
    }

    @Test
    void anUnknownModelIsA404UnderRejectUnknownModels() {
        HttpResponse<String> response = post("/api/string", "sk-yan", "unknown");

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(response.body()).isEqualTo("{\"error\":{\"message\":\"The model is not served here\","
                + "\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"model_not_found\"}}");
        assertThat(ChatService.CALLS).hasValue(0);
    }

    @Test
    void aBodyWithoutAModelIsA400() {
        HttpResponse<String> response = http.post("/api/string", "sk-yan", "{\"messages\":[]}");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).isEqualTo("{\"error\":{\"message\":\"The request body must have a string 'model' field.\","
                + "\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"invalid_request\"}}");
        assertThat(ChatService.CALLS).hasValue(0);
    }

    @Test
    void aPlainBeanMethodWithoutAnyHttpRequest() {
        ChatService service = CDI.current().select(ChatService.class).get();

        ChatService.Completion completion = service.complete(new ChatService.Prompt("plain", "hi"));

        assertThat(completion.text()).isEqualTo("Hello");
        assertThatThrownBy(() -> service.complete(new ChatService.Prompt("plain", "again")))
                .isInstanceOfSatisfying(RateLimitExceededException.class, refused -> {
                    assertThat(refused.status()).isEqualTo(429);
                    assertThat(refused.model()).isEqualTo("plain");
                    assertThat(refused.priority()).isEqualTo("default");
                    assertThat(refused.outcome()).isEqualTo(Admission.Outcome.REFUSED);
                    assertThat(refused.verdict().refusedBy()).isEqualTo(Limit.MODEL_REQUESTS);
                    assertThat(refused.getMessage()).isEqualTo("Model capacity reached for plain. Priority: default, "
                            + "Rate limit type: requests, Model TPM: not configured, Model RPM: 1, Remaining: 0");
                    assertThat(refused.errorResponse().headers()).containsEntry("x-ratelimit-limit-requests", "1");
                });
        assertThat(ChatService.CALLS).hasValue(1);
    }

    @Test
    void aPlainBeanMethodTakesItsCallerFromTheCdiPrincipal() {
        ChatService service = CDI.current().select(ChatService.class).get();
        TestPrincipals.CURRENT.set(() -> "zed");
        try {
            service.complete(new ChatService.Prompt("batch", "hi"));

            assertThatThrownBy(() -> service.complete(new ChatService.Prompt("batch", "again")))
                    .isInstanceOfSatisfying(RateLimitExceededException.class,
                            refused -> assertThat(refused.priority()).isEqualTo("prod"));
        } finally {
            TestPrincipals.CURRENT.remove();
        }
        assertThat(ChatService.CALLS).hasValue(1);
    }

    @Test
    void aBudgetRefusesAnInterceptedCallOnceItsSpendReachesTheBudget() {
        // each call costs (30 + 20) x 1000 = 50,000 micro-dollars: two fit in $0.10, the third is refused
        assertThat(post("/api/service/budgeted", "sk-zed", "ignored").statusCode()).isEqualTo(200);
        assertThat(post("/api/service/budgeted", "sk-zed", "ignored").statusCode()).isEqualTo(200);
        HttpResponse<String> refused = post("/api/service/budgeted", "sk-zed", "ignored");
        String periodEnd = java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC).toLocalDate().withDayOfMonth(1)
                .plusMonths(1).atStartOfDay(java.time.ZoneOffset.UTC).toInstant().toString();
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.body()).isEqualTo("{\"error\":{\"message\":\"Budget exceeded for key zed"
                + " on model budgeted: spent $0.1000 of $0.1000"
                + " in the period ending " + periodEnd + "\",\"type\":\"budget_exceeded\",\"param\":null,\"code\":\"429\"}}");
        assertThat(Http.header(refused, "x-ratelimit-limit-budget")).isEqualTo("0.1000");
        assertThat(Http.header(refused, "x-ratelimit-remaining-budget")).isEqualTo("0.0000");
        assertThat(ChatService.CALLS).hasValue(2);
        // yan (anonymous to the application's resolver) has no budget: untouched
        assertThat(post("/api/service/budgeted", "sk-yan", "ignored").statusCode()).isEqualTo(200);
    }

    private static HttpResponse<String> post(String path, String apiKey, String model) {
        return http.post(path, apiKey, "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}");
    }

    /** Decides one more request for the model (counting it) and returns the verdict; null for an unlimited model. */
    private static Verdict probe(String model) {
        return admit(CDI.current().select(RateLimitContext.class).get().runtime().limiter(), model, null).verdict();
    }

    private static long tokensRecorded(String model) {
        Verdict probe = probe(model);
        return probe.tokenLimit() - probe.tokenRemaining();
    }
}
