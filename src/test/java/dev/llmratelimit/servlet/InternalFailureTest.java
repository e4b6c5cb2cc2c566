package dev.llmratelimit.servlet;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.config.FilterSettings;
import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.identity.Caller;
import dev.llmratelimit.identity.CallerLimitPolicy;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.demo.EmbeddedTomcat;
import dev.llmratelimit.identity.CallerResolver;
import dev.llmratelimit.testsupport.Http;
import dev.llmratelimit.testsupport.UnavailableAdmissionStore;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.Map;

import static dev.llmratelimit.testsupport.Policies.policy;
import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/** A failure inside the filter never becomes a 500: the request reaches the application unlimited. */
class InternalFailureTest {

    @Test
    void aBrokenResolverLetsTheRequestThroughUnlimited() throws Exception {
        CallerResolver broken = principal -> {
            throw new IllegalStateException("resolver bug");
        };
        try (RateLimitRuntime runtime = RateLimitRuntime.create(properties("models.m.rpm=1"), broken);
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
}
