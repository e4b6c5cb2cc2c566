package dev.llmratelimit.servlet;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.testsupport.Http;
import jakarta.servlet.ServletContainerInitializer;
import jakarta.servlet.ServletContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.ContextConfig;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.scan.StandardJarScanner;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The three ways to register the filter: web.xml, the jar's web-fragment.xml, and the Servlet API. */
class RegistrationTest {

    private static final String CHAT = "{\"model\":\"gpt-4o-mini\",\"messages\":[]}";
    private static final String WEB_XML_6 = "<web-app xmlns=\"https://jakarta.ee/xml/ns/jakartaee\" version=\"6.0\">%s</web-app>";

    private Tomcat tomcat;
    private Context webapp;

    @AfterEach
    void stop() throws Exception {
        if (tomcat != null) {
            tomcat.stop();
            tomcat.destroy();
        }
        System.clearProperty("llm.ratelimit.models.gpt-4o-mini.rpm");
        System.clearProperty("llm.ratelimit.reservation.dev");
        System.clearProperty("llm.ratelimit.filter.enabled");
    }

    /** A Tomcat on a free loopback port, not started yet. */
    private Connector newTomcat() throws IOException {
        tomcat = new Tomcat();
        tomcat.setBaseDir(Files.createTempDirectory("tomcat").toString());
        Connector connector = new Connector();
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        tomcat.setConnector(connector);
        return connector;
    }

    /** A web application from a folder, with the chat servlet added; fragments only from WEB-INF/lib. */
    private Http webapp(Path docBase) throws Exception {
        Connector connector = newTomcat();
        ContextConfig config = new ContextConfig();
        config.setDefaultWebXml(org.apache.catalina.startup.Constants.NoDefaultWebXml);
        Context context = tomcat.addWebapp(tomcat.getHost(), "", docBase.toString(), config);
        webapp = context;
        StandardJarScanner scanner = new StandardJarScanner();
        scanner.setScanClassPath(false);
        context.setJarScanner(scanner);
        Tomcat.addServlet(context, "chat", new UsageServlet()).setAsyncSupported(true);
        context.addServletMappingDecoded("/v1/chat/completions", "chat");
        tomcat.start();
        return new Http(connector.getLocalPort());
    }

    private static Path docBase(String webXml, boolean withFragmentJar) throws IOException {
        Path docBase = Files.createTempDirectory("webapp");
        Files.createDirectories(docBase.resolve("WEB-INF/lib"));
        Files.writeString(docBase.resolve("WEB-INF/web.xml"), webXml);
        if (withFragmentJar) {
            try (JarOutputStream jar = new JarOutputStream(Files.newOutputStream(docBase.resolve("WEB-INF/lib/llm-ratelimit-filter.jar")))) {
                jar.putNextEntry(new JarEntry("META-INF/web-fragment.xml"));
                jar.write(Files.readAllBytes(Path.of("target/classes/META-INF/web-fragment.xml")));
                jar.closeEntry();
            }
        }
        return docBase;
    }

    private static List<Integer> statuses(Http http, int requests) {
        return java.util.stream.IntStream.range(0, requests).mapToObj(i -> http.chat(null, CHAT).statusCode()).toList();
    }

    @Test
    void webXmlSampleRegistersTheFilterWithInitParams() throws Exception {
        Http http = webapp(docBase(Files.readString(Path.of("WEB-INF-samples/web.xml")), true));

        // Anonymous callers share the default pool: 25 % of 3 RPM rounds down to 0 once the model is half busy.
        assertThat(statuses(http, 4)).containsExactly(200, 200, 429, 429);
    }

    @Test
    void theJarsWebFragmentRegistersTheFilter() throws Exception {
        System.setProperty("llm.ratelimit.models.gpt-4o-mini.rpm", "2");
        Http http = webapp(docBase(WEB_XML_6.formatted(""), true));

        HttpResponse<String> first = http.chat(null, CHAT);
        assertThat(Http.header(first, "x-ratelimit-limit-requests")).isEqualTo("2");
        assertThat(statuses(http, 2)).containsExactly(200, 429);
    }

    @Test
    void absoluteOrderingSwitchesTheFragmentOff() throws Exception {
        System.setProperty("llm.ratelimit.models.gpt-4o-mini.rpm", "2");
        Http http = webapp(docBase(WEB_XML_6.formatted("<absolute-ordering/>"), true));

        assertThat(Http.header(http.chat(null, CHAT), "x-ratelimit-limit-requests")).isNull();
        assertThat(statuses(http, 3)).containsExactly(200, 200, 200);
    }

    @Test
    void invalidConfigurationFailsTheApplicationsStartNotItsRequests() throws Exception {
        System.setProperty("llm.ratelimit.reservation.dev", "-0.1");
        Path docBase = docBase(WEB_XML_6.formatted(""), true);

        assertThatThrownBy(() -> webapp(docBase)).isInstanceOf(LifecycleException.class)
                .hasMessageContaining("child container failed during start");
        assertThat(webapp.getState().name()).isEqualTo("FAILED");
    }

    @Test
    void theFiltersOwnSwitchLetsEverythingPass() throws Exception {
        System.setProperty("llm.ratelimit.models.gpt-4o-mini.rpm", "2");
        System.setProperty("llm.ratelimit.filter.enabled", "false");
        Http http = webapp(docBase(WEB_XML_6.formatted(""), true));

        assertThat(Http.header(http.chat(null, CHAT), "x-ratelimit-limit-requests")).isNull();
        assertThat(statuses(http, 3)).containsExactly(200, 200, 200);
    }

    @Test
    void theFilterSwitchedOffStillFailsTheStartOnInvalidConfiguration() throws Exception {
        System.setProperty("llm.ratelimit.filter.enabled", "false");
        System.setProperty("llm.ratelimit.reservation.dev", "-0.1");
        Path docBase = docBase(WEB_XML_6.formatted(""), true);

        assertThatThrownBy(() -> webapp(docBase)).isInstanceOf(LifecycleException.class);
        assertThat(webapp.getState().name()).isEqualTo("FAILED");
    }

    @Test
    void servletApiRegistrationFromAnInitializer() throws Exception {
        RateLimitRuntime runtime = RateLimitRuntime.create(properties("models.gpt-4o-mini.rpm=1"), null);
        ServletContainerInitializer initializer = (Set<Class<?>> classes, ServletContext context) ->
                context.addFilter("llm-ratelimit", new RateLimitFilter(runtime))
                        .addMappingForUrlPatterns(EnumSet.of(jakarta.servlet.DispatcherType.REQUEST), false, "/*");
        Connector connector = newTomcat();
        Context context = tomcat.addContext("", null);
        context.addServletContainerInitializer(initializer, null);
        Tomcat.addServlet(context, "chat", new UsageServlet());
        context.addServletMappingDecoded("/v1/chat/completions", "chat");
        tomcat.start();
        Http http = new Http(connector.getLocalPort());

        assertThat(statuses(http, 2)).containsExactly(200, 429);
        runtime.close();
    }

    /** The application's endpoint: a fixed JSON completion. */
    static final class UsageServlet extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            request.getInputStream().readAllBytes();
            response.setContentType("application/json");
            try (OutputStream out = response.getOutputStream()) {
                out.write(("{\"choices\":[]," + ScriptedChatServlet.USAGE_30 + "}").getBytes(StandardCharsets.UTF_8));
            }
        }
    }
}
