package dev.llmratelimit.demo;

import dev.llmratelimit.config.ConfigFiles;
import dev.llmratelimit.config.ConfigurationLoader;
import dev.llmratelimit.config.MicroProfileProperties;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.servlet.RateLimitFilter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;

import jakarta.servlet.http.HttpServlet;

import java.io.IOException;
import java.net.URL;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;

/**
 * The demo: sample endpoints of every shape the filter limits (OpenAI chat, legacy completions,
 * embeddings and Responses; Anthropic Messages) behind the filter, registered programmatically.
 *
 * <pre>java -jar target/llm-ratelimit-demo.jar [--config FILE.properties|config.yaml] [--port N]</pre>
 */
public final class DemoServer implements AutoCloseable {

    private final EmbeddedTomcat tomcat;
    private final RateLimitRuntime runtime;
    private final PrometheusMetrics metrics = new PrometheusMetrics();
    private final int port;

    private DemoServer(SmallRyeConfig config, int port) throws Exception {
        DemoSettings settings = DemoSettings.from(config);
        runtime = RateLimitRuntime.create(ConfigurationLoader.of("the demo's configuration",
                () -> MicroProfileProperties.read(config)), null, Clock.systemUTC(), metrics.telemetry());
        tomcat = new EmbeddedTomcat(port)
                .filter("demo-auth", new BearerKeyAuthFilter(settings.keys()), "/*")
                .filter("llm-ratelimit", new RateLimitFilter(runtime), "/*")
                .servlet("chat", chatServlet(config, settings), "/v1/chat/completions", "/chat/completions")
                .servlet("completions", new MockCompletionsServlet(settings), "/v1/completions", "/completions")
                .servlet("embeddings", new MockEmbeddingsServlet(settings), "/v1/embeddings", "/embeddings")
                .servlet("responses", new MockResponsesServlet(settings), "/v1/responses", "/responses")
                .servlet("messages", new MockMessagesServlet(settings), "/v1/messages", "/messages")
                .servlet("metrics", metrics.servlet(), "/metrics");
        this.port = tomcat.start();
    }

    /** The mock model, or with {@code demo.upstream.url} the forwarder through the client-side limiter. */
    private static HttpServlet chatServlet(SmallRyeConfig config, DemoSettings settings) {
        return config.getOptionalValue("demo.upstream.url", String.class)
                .<HttpServlet>map(url -> new ForwardingChatServlet(url,
                        config.getOptionalValue("demo.upstream.api-key", String.class).orElse(null),
                        MicroProfileProperties.read(config)))
                .orElseGet(() -> new MockChatServlet(settings));
    }

    /**
     * Starts a demo server configured by {@code configFile}, or by the bundled {@code demo.properties}
     * when it is null. The file replaces the bundled one: none of its settings (models, reservations,
     * keys) apply then. System properties and environment variables still override either. A LiteLLM
     * {@code config.yaml} is read by the runtime itself, as {@code llm.ratelimit.config-file}, so a
     * reload sees it change.
     */
    public static DemoServer start(Path configFile, int port) throws Exception {
        SmallRyeConfigBuilder builder = new SmallRyeConfigBuilder().addDefaultSources();
        if (configFile != null && ConfigFiles.isYaml(configFile)) {
            builder.withSources(new PropertiesConfigSource(Map.of(ConfigFiles.PROPERTY, configFile.toString()), "--config", 150));
        } else {
            builder.withSources(new PropertiesConfigSource(
                    configFile == null ? resource("demo.properties") : configFile.toUri().toURL(), 150));
        }
        return new DemoServer(builder.build(), port);
    }

    private static URL resource(String name) throws IOException {
        URL url = DemoServer.class.getClassLoader().getResource(name);
        if (url == null) {
            throw new IOException(name + " is missing from the class path");
        }
        return url;
    }

    public int port() {
        return port;
    }

    /** The filter's runtime, for a reload on demand. */
    public RateLimitRuntime runtime() {
        return runtime;
    }

    @Override
    public void close() throws Exception {
        tomcat.close();
        runtime.close();
        metrics.close();
    }

    public static void main(String[] args) throws Exception {
        Path config = null;
        int port = 8080;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--config" -> config = Path.of(args[++i]);
                case "--port" -> port = Integer.parseInt(args[++i]);
                default -> {
                    System.err.println("usage: java -jar llm-ratelimit-demo.jar [--config FILE] [--port N]");
                    System.exit(2);
                }
            }
        }
        DemoServer server = start(config, port);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.close();
            } catch (Exception e) {
                System.err.println("Shutdown: " + e);
            }
        }));
        System.out.println("llm-ratelimit demo ready at http://127.0.0.1:" + server.port() + "/v1/chat/completions");
    }
}
