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

    /**
     * @param config everything the demo reads at start-up (its keys, the mock's figures, the upstream)
     * @param limits what the rate limiter reads at start-up and at every reload: system properties,
     *               environment variables and the bundled configuration, or the {@code --config}
     *               file named as {@code llm.ratelimit.config-file}, so the runtime reads it afresh
     */
    private DemoServer(SmallRyeConfig config, SmallRyeConfig limits, int port) throws Exception {
        DemoSettings settings = DemoSettings.from(config);
        runtime = RateLimitRuntime.create(ConfigurationLoader.of("the demo's configuration",
                () -> MicroProfileProperties.read(limits)), null, Clock.systemUTC(), metrics.telemetry());
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
     * keys) apply then. System properties and environment variables still override either. The file
     * (a LiteLLM {@code config.yaml} or a properties file) is read by the runtime itself, as
     * {@code llm.ratelimit.config-file}, so with {@code llm.ratelimit.reload-interval} a changed file
     * applies without a restart; the demo's own {@code demo.*} settings in it are read at start-up. A
     * properties file that names a {@code config-file} itself is read at start-up, and the file it
     * names at every reload.
     */
    public static DemoServer start(Path configFile, int port) throws Exception {
        if (configFile == null) {
            SmallRyeConfig bundled = new SmallRyeConfigBuilder().addDefaultSources()
                    .withSources(new PropertiesConfigSource(resource("demo.properties"), 150)).build();
            return new DemoServer(bundled, bundled, port);
        }
        PropertiesConfigSource pointer = new PropertiesConfigSource(Map.of(ConfigFiles.PROPERTY, configFile.toString()),
                "--config", 150);
        SmallRyeConfig limits = new SmallRyeConfigBuilder().addDefaultSources().withSources(pointer).build();
        if (ConfigFiles.isYaml(configFile)) {
            return new DemoServer(limits, limits, port);
        }
        PropertiesConfigSource file = new PropertiesConfigSource(configFile.toUri().toURL(), 140);
        if (file.getValue(ConfigFiles.PROPERTY) != null) {
            // the file names its own config-file: that one is re-read, beneath the file's properties
            SmallRyeConfig config = new SmallRyeConfigBuilder().addDefaultSources().withSources(file).build();
            return new DemoServer(config, config, port);
        }
        SmallRyeConfig config = new SmallRyeConfigBuilder().addDefaultSources().withSources(file, pointer).build();
        return new DemoServer(config, limits, port);
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
