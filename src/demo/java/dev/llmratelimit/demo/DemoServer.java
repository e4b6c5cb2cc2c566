package dev.llmratelimit.demo;

import dev.llmratelimit.config.ConfigFiles;
import dev.llmratelimit.config.ConfigurationLoader;
import dev.llmratelimit.config.MicroProfileProperties;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.servlet.RateLimitFilter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Properties;

/**
 * The demo: a sample OpenAI-compatible chat endpoint behind the filter, registered programmatically.
 *
 * <pre>java -jar target/llm-ratelimit-demo.jar [--config FILE.properties|config.yaml] [--port N]</pre>
 */
public final class DemoServer implements AutoCloseable {

    private final EmbeddedTomcat tomcat;
    private final RateLimitRuntime runtime;
    private final int port;

    private DemoServer(SmallRyeConfig config, int port) throws Exception {
        DemoSettings settings = DemoSettings.from(config);
        runtime = RateLimitRuntime.create(ConfigurationLoader.of("the demo's configuration",
                () -> MicroProfileProperties.read(config)), null, Clock.systemUTC());
        tomcat = new EmbeddedTomcat(port)
                .filter("demo-auth", new BearerKeyAuthFilter(settings.keys()), "/*")
                .filter("llm-ratelimit", new RateLimitFilter(runtime), "/*")
                .servlet("chat", new MockChatServlet(settings), "/v1/chat/completions", "/chat/completions");
        this.port = tomcat.start();
    }

    /**
     * Starts a demo server; {@code configFile} (may be null) overrides {@code config/demo.properties}.
     * A LiteLLM {@code config.yaml} is the whole policy: the runtime reads it (again at each reload),
     * and demo.properties then gives only the keys, the callers' priorities and the mock endpoint.
     */
    public static DemoServer start(Path configFile, int port) throws Exception {
        SmallRyeConfigBuilder builder = new SmallRyeConfigBuilder().addDefaultSources();
        if (configFile != null && ConfigFiles.isYaml(configFile)) {
            Properties demo = new Properties();
            try (InputStream in = resource("demo.properties").openStream()) {
                demo.load(in);
            }
            demo.stringPropertyNames().stream().filter(DemoServer::isPolicy).forEach(demo::remove);
            builder.withSources(new PropertiesConfigSource(demo, "demo.properties", 150),
                    new PropertiesConfigSource(Map.of(ConfigFiles.PROPERTY, configFile.toString()), "--config", 500));
        } else {
            builder.withSources(new PropertiesConfigSource(resource("demo.properties"), 150));
            if (configFile != null) {
                builder.withSources(new PropertiesConfigSource(configFile.toUri().toURL(), 500));
            }
        }
        return new DemoServer(builder.build(), port);
    }

    /** The demo.properties keys a LiteLLM config.yaml replaces. */
    private static boolean isPolicy(String name) {
        return name.startsWith("llm.ratelimit.models.") || name.startsWith("llm.ratelimit.reservation.")
                || name.equals("llm.ratelimit.default-priority") || name.equals("llm.ratelimit.saturation-threshold");
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
