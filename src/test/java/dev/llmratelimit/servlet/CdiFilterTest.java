package dev.llmratelimit.servlet;

import dev.llmratelimit.demo.BearerKeyAuthFilter;
import dev.llmratelimit.demo.EmbeddedTomcat;
import dev.llmratelimit.testsupport.Http;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tomcat with Weld: the container creates the filter, CDI injects the application-scoped runtime
 * built from MicroProfile Config (SmallRye, here fed by system properties), and the application's
 * own {@link TestCallerResolver} bean replaces the built-in resolver.
 */
class CdiFilterTest {

    private static EmbeddedTomcat tomcat;
    private static Http http;

    @BeforeAll
    static void start() throws Exception {
        System.setProperty("llm.ratelimit.models.gpt-4o.rpm", "10");
        System.setProperty("llm.ratelimit.reservation.prod", "0.9");
        tomcat = new EmbeddedTomcat(0)
                .filter("auth", new BearerKeyAuthFilter(Map.of("sk-zed", "zed", "sk-yan", "yan")), "/*")
                .filter("llm-ratelimit", RateLimitFilter.class.getName(), "/*")
                .servlet("chat", new RegistrationTest.UsageServlet(), "/v1/chat/completions");
        tomcat.context().addApplicationListener("org.jboss.weld.environment.servlet.Listener");
        http = new Http(tomcat.start());
    }

    @AfterAll
    static void stop() throws Exception {
        tomcat.close();
    }

    @Test
    void theInjectedRuntimeUsesTheApplicationsResolverBean() {
        HttpResponse<String> zed = http.chat("sk-zed", "{\"model\":\"gpt-4o\"}");
        HttpResponse<String> yan = http.chat("sk-yan", "{\"model\":\"gpt-4o\"}");

        assertThat(zed.statusCode()).isEqualTo(200);
        assertThat(Http.header(zed, "x-ratelimit-priority")).isEqualTo("prod");
        assertThat(Http.header(zed, "x-ratelimit-limit-requests")).isEqualTo("10");
        assertThat(Http.header(yan, "x-ratelimit-priority")).isEqualTo("default");
    }
}
