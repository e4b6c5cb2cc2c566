package dev.llmratelimit.observe;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.demo.EmbeddedTomcat;
import dev.llmratelimit.servlet.RateLimitFilter;
import dev.llmratelimit.testsupport.Http;
import org.apache.catalina.authenticator.BasicAuthenticator;
import org.apache.catalina.realm.GenericPrincipal;
import org.apache.catalina.realm.RealmBase;
import org.apache.tomcat.util.descriptor.web.LoginConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The status page behind container security: Tomcat's BASIC authenticator and a realm decide who
 * the caller is and which roles it has; the page admits only the configured role.
 */
class StatusRoleTest {

    private static RateLimitRuntime runtime;
    private static EmbeddedTomcat tomcat;
    private static int port;

    @BeforeAll
    static void start() throws Exception {
        runtime = RateLimitRuntime.create(properties("models.m.rpm=5", "status.path=/admin/limits",
                "status.role=ops"), null);
        tomcat = new EmbeddedTomcat(0).filter("llm-ratelimit", new RateLimitFilter(runtime), "/*")
                .servlet("chat", new UsageServlet(), "/v1/chat/completions");
        LoginConfig login = new LoginConfig();
        login.setAuthMethod("BASIC");
        login.setRealmName("limits");
        tomcat.context().setLoginConfig(login);
        tomcat.context().getPipeline().addValve(new BasicAuthenticator());
        tomcat.context().setRealm(new UsersRealm(Map.of("olga", "ops", "dan", "developer")));
        port = tomcat.start();
    }

    @AfterAll
    static void stop() throws Exception {
        tomcat.close();
        runtime.close();
    }

    private static HttpResponse<String> get(String path, String user) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET();
        if (user != null) {
            request.header("Authorization", "Basic " + Base64.getEncoder()
                    .encodeToString((user + ":secret-" + user).getBytes(StandardCharsets.UTF_8)));
        }
        return Http.send(request.build());
    }

    @Test
    void anAnonymousCallerIsAskedToLogIn() {
        for (String path : List.of("/admin/limits", "/admin/limits.json")) {
            HttpResponse<String> response = get(path, null);
            assertThat(response.statusCode()).isEqualTo(401);
            assertThat(Http.header(response, "WWW-Authenticate")).isEqualTo("Basic realm=\"limits\"");
            assertThat(response.body()).doesNotContain("saturation");
        }
    }

    @Test
    void aCallerWithoutTheRoleIsRefused() {
        for (String path : List.of("/admin/limits", "/admin/limits.json")) {
            HttpResponse<String> response = get(path, "dan");
            assertThat(response.statusCode()).isEqualTo(403);
            assertThat(response.body()).isEqualTo("{\"error\":{\"message\":\"The status page needs the role ops\","
                    + "\"type\":\"permission_error\",\"param\":null,\"code\":\"forbidden\"}}");
        }
    }

    @Test
    void aCallerWithTheRoleSeesThePage() {
        HttpResponse<String> json = get("/admin/limits.json", "olga");
        assertThat(json.statusCode()).isEqualTo(200);
        assertThat(json.body()).contains("\"name\":\"m\"", "\"rpm\":5");
        HttpResponse<String> html = get("/admin/limits", "olga");
        assertThat(html.statusCode()).isEqualTo(200);
        assertThat(html.body()).contains("data-model=\"m\"");
    }

    @Test
    void wrongCredentialsAreNotLetIn() {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/admin/limits.json"))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("olga:guess".getBytes(StandardCharsets.UTF_8)))
                .GET().build();
        HttpResponse<String> response = Http.send(request);
        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(response.body()).doesNotContain("saturation");
    }

    /** Users named in a map to their one role; each one's password is {@code secret-<name>}. */
    private static final class UsersRealm extends RealmBase {
        private final Map<String, String> roles;

        UsersRealm(Map<String, String> roles) {
            this.roles = roles;
        }

        @Override
        protected String getPassword(String username) {
            return roles.containsKey(username) ? "secret-" + username : null;
        }

        @Override
        protected Principal getPrincipal(String username) {
            return new GenericPrincipal(username, List.of(roles.get(username)));
        }
    }
}
