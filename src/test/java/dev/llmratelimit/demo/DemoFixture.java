package dev.llmratelimit.demo;

import dev.llmratelimit.testsupport.Http;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Starts the README's demo on a free port with a {@code --config} file. */
public final class DemoFixture implements AutoCloseable {

    private final DemoServer server;
    private final Http http;

    /** The bundled config/demo.properties with extra lines after it (later lines win). */
    public DemoFixture(String... overrides) throws Exception {
        this(bundledConfig() + "\n" + String.join("\n", overrides) + "\n");
    }

    private DemoFixture(String configText) throws Exception {
        Path config = Files.createTempFile("demo", ".properties");
        Files.writeString(config, configText);
        server = DemoServer.start(config, 0);
        http = new Http(server.port());
    }

    /** The demo over a configuration file: a LiteLLM config.yaml or a properties file. */
    public DemoFixture(Path config) throws Exception {
        server = DemoServer.start(config, 0);
        http = new Http(server.port());
    }

    public DemoServer server() {
        return server;
    }

    /** A {@code --config} file of exactly these lines, which replaces the bundled one. */
    public static DemoFixture withConfig(String... lines) throws Exception {
        return new DemoFixture(String.join("\n", lines) + "\n");
    }

    private static String bundledConfig() throws IOException {
        try (InputStream in = DemoFixture.class.getClassLoader().getResourceAsStream("demo.properties")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    public Http http() {
        return http;
    }

    public int port() {
        return server.port();
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + server.port() + "/v1";
    }

    @Override
    public void close() throws Exception {
        server.close();
    }
}
