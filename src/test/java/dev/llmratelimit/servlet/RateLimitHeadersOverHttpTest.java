package dev.llmratelimit.servlet;

import dev.llmratelimit.config.FilterSettings;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.engine.DecisionObserver;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.identity.CallerLimitPolicy;
import dev.llmratelimit.identity.CallerResolvers;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.Http;
import dev.llmratelimit.testsupport.MutableClock;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the client reads over HTTP: OpenAI's {@code x-ratelimit-reset-*} headers (Go durations, on a
 * clock the test moves), the application's own {@code x-ratelimit-*} headers dropped in favour of the
 * filter's, and the 429 body in both error styles. Model {@code m}: 2 requests and 100 tokens per 60 s,
 * each answer 30 tokens.
 */
class RateLimitHeadersOverHttpTest {

    private static final String CHAT = FilterServer.chat("m");

    /** An upstream-copying application: it sets rate-limit headers of its own in every way the API allows. */
    static final class HeaderSettingApplication extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            request.getInputStream().readAllBytes();
            response.setHeader("x-ratelimit-limit-requests", "10000");
            response.addHeader("X-RateLimit-Remaining-Requests", "9999");
            response.setIntHeader("x-ratelimit-limit-tokens", 2_000_000);
            response.addIntHeader("x-ratelimit-remaining-tokens", 1_999_970);
            response.setHeader("x-ratelimit-reset-requests", "6ms");
            response.setDateHeader("x-ratelimit-reset-tokens", 0);
            response.setHeader("x-ratelimit-priority", "upstream");
            response.setHeader("x-request-id", "req-1");
            response.setContentType("application/json");
            response.getOutputStream().write(("{\"id\":\"1\",\"choices\":[],"
                    + "\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":20,\"total_tokens\":30}}")
                    .getBytes(StandardCharsets.UTF_8));
        }
    }

    private static FilterServer server(MutableClock clock, String... extra) throws Exception {
        Map<String, String> properties = new HashMap<>(Map.of(
                "llm.ratelimit.models.m.rpm", "2",
                "llm.ratelimit.models.m.tpm", "100",
                "llm.ratelimit.window", "60s"));
        for (String line : extra) {
            properties.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1));
        }
        RateLimitPolicy policy = PolicyParser.parse(properties);
        CallerLimitPolicy callerLimits = CallerLimitPolicy.parse(properties, policy.window());
        RateLimitRuntime runtime = new RateLimitRuntime(FilterSettings.parse(properties),
                new RateLimiter(policy, new MemoryAdmissionStore(clock), clock, callerLimits.leaseMillis(), List.of(),
                        DecisionObserver.NONE),
                CallerResolvers.create(properties), callerLimits, () -> { });
        return new FilterServer(runtime, Map.of(), new HeaderSettingApplication(), "/v1/chat/completions");
    }

    private static List<String> all(HttpResponse<?> response, String name) {
        return response.headers().allValues(name);
    }

    @Test
    void resetHeadersCountDownTheWindowAndTheRefusalUntilItClears() throws Exception {
        MutableClock clock = new MutableClock();
        try (FilterServer server = server(clock)) {
            HttpResponse<String> first = server.http().chat(null, CHAT);
            clock.advance(Duration.ofMillis(59_988));
            HttpResponse<String> second = server.http().chat(null, CHAT);
            HttpResponse<String> refused = server.http().chat(null, CHAT);

            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(all(first, "x-ratelimit-reset-requests")).containsExactly("1m0s");
            assertThat(all(first, "x-ratelimit-reset-tokens")).containsExactly("1m0s");
            assertThat(all(second, "x-ratelimit-reset-requests")).containsExactly("12ms");
            assertThat(all(second, "x-ratelimit-reset-tokens")).containsExactly("12ms");

            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(all(refused, "retry-after")).containsExactly("1");
            assertThat(all(refused, "x-ratelimit-limit-requests")).containsExactly("2");
            assertThat(all(refused, "x-ratelimit-remaining-requests")).containsExactly("0");
            assertThat(all(refused, "x-ratelimit-reset-requests")).containsExactly("12ms");
            assertThat(all(refused, "x-ratelimit-reset-tokens")).isEmpty();       // only the refusing limit is shown

            clock.advance(Duration.ofMillis(12));
            HttpResponse<String> nextWindow = server.http().chat(null, CHAT);
            assertThat(nextWindow.statusCode()).isEqualTo(200);
            assertThat(all(nextWindow, "x-ratelimit-reset-requests")).containsExactly("1m0s");
        }
    }

    @Test
    void theFiltersRateLimitHeadersWinOverTheApplicationsOwn() throws Exception {
        try (FilterServer server = server(new MutableClock())) {
            HttpResponse<String> answer = server.http().chat(null, CHAT);

            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(all(answer, "x-ratelimit-limit-requests")).containsExactly("2");
            assertThat(all(answer, "x-ratelimit-remaining-requests")).containsExactly("1");
            assertThat(all(answer, "x-ratelimit-limit-tokens")).containsExactly("100");
            assertThat(all(answer, "x-ratelimit-remaining-tokens")).containsExactly("100");
            assertThat(all(answer, "x-ratelimit-reset-requests")).containsExactly("1m0s");
            assertThat(all(answer, "x-ratelimit-reset-tokens")).containsExactly("1m0s");
            assertThat(all(answer, "x-ratelimit-priority")).containsExactly("default");
            assertThat(all(answer, "x-request-id")).containsExactly("req-1");       // other headers untouched
            assertThat(answer.body()).contains("\"total_tokens\":30");
        }
    }

    @Test
    void theDefaultErrorStyleIsLiteLlms() throws Exception {
        try (FilterServer server = server(new MutableClock())) {
            server.http().chat(null, CHAT);
            server.http().chat(null, CHAT);
            HttpResponse<String> refused = server.http().chat(null, CHAT);

            assertThat(refused.body()).isEqualTo("{\"error\":{\"message\":\"Model capacity reached for m. Priority: default, "
                    + "Rate limit type: requests, Model TPM: 100, Model RPM: 2, Remaining: 0\","
                    + "\"type\":\"throttling_error\",\"param\":null,\"code\":\"429\"}}");
        }
    }

    @Test
    void openAiErrorStyleNamesTheLimitTypeAndTheWait() throws Exception {
        MutableClock clock = new MutableClock();
        try (FilterServer server = server(clock, "llm.ratelimit.error-style=openai", "llm.ratelimit.models.t.tpm=60")) {
            server.http().chat(null, CHAT);
            server.http().chat(null, CHAT);
            clock.advance(Duration.ofSeconds(54));
            HttpResponse<String> requests = server.http().chat(null, CHAT);
            String tokensChat = FilterServer.chat("t");
            server.http().chat(null, tokensChat);
            server.http().chat(null, tokensChat);
            clock.advance(Duration.ofMillis(1_500));
            HttpResponse<String> tokens = server.http().chat(null, tokensChat);

            assertThat(requests.statusCode()).isEqualTo(429);
            assertThat(requests.body()).isEqualTo("{\"error\":{\"message\":\"Model capacity reached for m. Priority: default, "
                    + "Rate limit type: requests, Model TPM: 100, Model RPM: 2, Remaining: 0. Please try again in 6s.\","
                    + "\"type\":\"requests\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}");
            assertThat(all(requests, "x-ratelimit-reset-requests")).containsExactly("6s");
            assertThat(all(requests, "retry-after")).containsExactly("6");
            assertThat(tokens.statusCode()).isEqualTo(429);
            assertThat(tokens.body()).isEqualTo("{\"error\":{\"message\":\"Model capacity reached for t. Priority: default, "
                    + "Rate limit type: tokens, Model TPM: 60, Model RPM: not configured, Remaining: 0. "
                    + "Please try again in 58.5s.\",\"type\":\"tokens\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}");
            assertThat(all(tokens, "x-ratelimit-reset-tokens")).containsExactly("58.5s");
            assertThat(all(tokens, "retry-after")).containsExactly("59");
        }
    }
}
