package dev.llmratelimit.testsupport;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.demo.BearerKeyAuthFilter;
import dev.llmratelimit.demo.EmbeddedTomcat;
import dev.llmratelimit.servlet.RateLimitFilter;
import jakarta.servlet.Servlet;

import java.util.Map;

/**
 * An embedded Tomcat with the filter in front of an application servlet: {@code Authorization:
 * Bearer <key>} authenticates as the principal the key maps to. Closing it closes the runtime too.
 */
public final class FilterServer implements AutoCloseable {

    private final RateLimitRuntime runtime;
    private final EmbeddedTomcat tomcat;
    private final Http http;

    public FilterServer(RateLimitRuntime runtime, Map<String, String> keys, Servlet application, String... paths)
            throws Exception {
        this.runtime = runtime;
        this.tomcat = new EmbeddedTomcat(0)
                .filter("auth", new BearerKeyAuthFilter(keys), "/*")
                .filter("llm-ratelimit", new RateLimitFilter(runtime), "/*")
                .servlet("chat", application, paths);
        this.http = new Http(tomcat.start());
    }

    public Http http() {
        return http;
    }

    public int port() {
        return tomcat.port();
    }

    /** The JSON body of a one-message chat request for the model. */
    public static String chat(String model) {
        return "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
    }

    @Override
    public void close() throws Exception {
        tomcat.close();
        runtime.close();
    }
}
